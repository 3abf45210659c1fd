import type { StandingGrant } from '../protocol';
import { clip } from './format-turn';

/** Anything that lists and revokes standing grants: the approval gateway. */
export interface ManagesGrants {
  grants(): Promise<StandingGrant[]>;
  revokeGrant(grantId: string): Promise<StandingGrant>;
}

/** `tollgate grants`: the grants in force (and those ended within a day), one line each. */
export async function listGrantsCommand(
  gateway: ManagesGrants,
  options: { json?: boolean; now?: Date } = {},
): Promise<void> {
  const grants = await gateway.grants();
  if (options.json) {
    console.log(JSON.stringify(grants, null, 2));
    return;
  }
  if (grants.length === 0) {
    console.log('No standing grants.');
    return;
  }
  const now = options.now ?? new Date();
  for (const grant of grants) console.log(grantLine(grant, now));
}

/** `tollgate grants revoke <grantId>`. */
export async function revokeGrantCommand(gateway: ManagesGrants, grantId: string): Promise<void> {
  const grant = await gateway.revokeGrant(grantId);
  console.log(`${grant.grantId} revoked by ${clip(grant.revokedBy ?? 'you')}: it covers nothing from now on.`);
}

/** One grant as a line: id, what, whose, uses, expiry, giver, state. Everything from others is clipped. */
export function grantLine(grant: StandingGrant, now: Date): string {
  const what = grant.mcpServer !== undefined ? `${grant.mcpServer}__*` : (grant.tools ?? []).join(',');
  const scope =
    grant.scope.type === 'everyone'
      ? 'everyone'
      : grant.scope.type === 'requester'
        ? `requester ${grant.scope.requester}`
        : `conversation ${grant.scope.conversationId}`;
  const uses = `${grant.used}${grant.uses !== undefined ? `/${grant.uses}` : ''} uses`;
  const until = grant.expiresAt !== undefined ? `until ${grant.expiresAt}` : 'no end';
  const state =
    grant.revokedAt !== undefined
      ? `revoked by ${grant.revokedBy ?? '?'}`
      : grant.expiresAt !== undefined && Date.parse(grant.expiresAt) <= now.getTime()
        ? 'expired'
        : grant.uses !== undefined && grant.used >= grant.uses
          ? 'used up'
          : 'in force';
  return clip(`${grant.grantId} · ${what} for ${scope} · ${uses} · ${until} · by ${grant.grantedBy} · ${state}`);
}
