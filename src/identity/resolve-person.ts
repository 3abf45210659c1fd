import type { PersonDirectory } from './people';

/** Who is acting, as the channel they came through says it. */
export type ChannelIdentity =
  /** A gateway bearer token: its configured person. */
  | { channel: 'token'; person: string }
  /** A Slack click: `user.id` and `team.id` from the signed payload. */
  | { channel: 'slack'; userId: string; teamId?: string }
  /** An email link: the address the signed link was issued to. */
  | { channel: 'email'; address: string };

/** The outcome of {@link resolvePerson}. */
export type PersonResolution =
  /** `person`: who decides; `identity`: the channel identity, for the audit. */
  { ok: true; person: string; identity: string } | { ok: false; identity: string; reason: string };

/**
 * The one place a channel identity becomes a person. Every decision path asks here before it decides,
 * so that self-approval and quorum compare people: `ana` and `email:ana@example.com` are one person,
 * and two channel identities of one person are one vote.
 *
 * With the identity map configured (people in the access file), a Slack user or an address that is not
 * in it is refused: it is nobody the operator named. Without the map, a channel identity stands for
 * itself (`slack:U0123`, `email:ana@example.com`), which approver lists can name directly.
 *
 * @example
 * resolvePerson(people, { channel: 'slack', userId: 'U0123', teamId: 'T0001' }); // { ok: true, person: 'ana', ... }
 */
export function resolvePerson(people: PersonDirectory, who: ChannelIdentity): PersonResolution {
  switch (who.channel) {
    case 'token':
      return { ok: true, person: who.person, identity: `token:${who.person}` };
    case 'slack': {
      const identity = who.teamId !== undefined ? `slack:${who.teamId}/${who.userId}` : `slack:${who.userId}`;
      if (!people.configured) return { ok: true, person: `slack:${who.userId}`, identity };
      const person = people.bySlackUser(who.userId, who.teamId);
      return person
        ? { ok: true, person: person.id, identity }
        : { ok: false, identity, reason: `Slack user ${who.userId} is not in the identity map, so cannot decide.` };
    }
    case 'email': {
      const address = who.address.toLowerCase();
      const identity = `email:${address}`;
      if (!people.configured) return { ok: true, person: identity, identity };
      const person = people.byEmailAddress(address);
      return person
        ? { ok: true, person: person.id, identity }
        : { ok: false, identity, reason: `${address} is not in the identity map, so cannot decide.` };
    }
  }
}
