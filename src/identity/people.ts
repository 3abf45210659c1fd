/** One person and the channel identities that are theirs. */
export interface Person {
  /** The person id: what approver lists, self-approval and quorum compare. */
  id: string;
  /** Slack users: `U0123` (any allowed workspace) or `T0001/U0123` (that workspace only). */
  slack: readonly string[];
  /** Email addresses, compared without regard to case. */
  email: readonly string[];
}

/** Person ids: letters, digits and `._@+-`, no colon, so a person id never looks like `slack:…` or `email:…`. */
export const personIdPattern = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,199}$/;
const slackIdPattern = /^(?:[A-Z0-9]{2,32}\/)?[A-Z0-9]{2,32}$/;
const emailPattern = /^[^\s@<>"\\]{1,200}@[^\s@<>"\\]{1,200}$/;

/**
 * The identity map: who is who across channels. Empty (not configured) when the access file lists no
 * people; then channel identities stand for themselves (`slack:U0123`), as before the map existed.
 *
 * @example
 * const people = PersonDirectory.fromList([{ id: 'ana', slack: ['T0001/U0123'], email: ['ana@example.com'] }]);
 * people.bySlackUser('U0123', 'T0001')?.id; // 'ana'
 */
export class PersonDirectory {
  private readonly byId = new Map<string, Person>();
  private readonly bySlack = new Map<string, Person>();
  private readonly byEmail = new Map<string, Person>();
  /** Channel names (`slack:U0123`, `email:ana@example.com`) to the one person each names; null where two share one. */
  private readonly byName = new Map<string, Person | null>();

  private constructor(people: readonly Person[]) {
    for (const person of people) {
      this.byId.set(person.id, person);
      for (const slack of person.slack) this.bySlack.set(slack, person);
      for (const email of person.email) this.byEmail.set(email.toLowerCase(), person);
      for (const name of this.namesOf(person.id).slice(1)) {
        const earlier = this.byName.get(name);
        this.byName.set(name, earlier === undefined || earlier === person ? person : null);
      }
    }
  }

  /** No people: the map is not configured. */
  static empty(): PersonDirectory {
    return new PersonDirectory([]);
  }

  /**
   * Builds the map, refusing malformed entries and any channel identity claimed by two people (which would
   * let one of them stand for the other). Messages name entries by position and id, never by secrets.
   */
  static fromList(list: unknown): PersonDirectory {
    if (!Array.isArray(list)) throw new TypeError('"people" must be an array of { id, slack?, email? }.');
    const people: Person[] = [];
    const claimed = new Map<string, string>();
    const claim = (key: string, id: string, what: string) => {
      const earlier = claimed.get(key);
      if (earlier !== undefined && earlier !== id) {
        throw new TypeError(`${what} belongs to both "${earlier}" and "${id}"; one channel identity is one person.`);
      }
      claimed.set(key, id);
    };
    list.forEach((entry: unknown, index) => {
      const where = `people[${index}]`;
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
        throw new TypeError(`${where} must be an object { id, slack?, email? }.`);
      }
      const { id, slack = [], email = [], ...rest } = entry as Record<string, unknown>;
      const unknown = Object.keys(rest);
      if (unknown.length > 0) throw new TypeError(`${where} has unknown field(s): ${unknown.join(', ')}.`);
      if (typeof id !== 'string' || !personIdPattern.test(id)) {
        throw new TypeError(`${where}.id must match ${personIdPattern} (letters, digits, ._@+-; no colon).`);
      }
      if (people.some((person) => person.id === id)) throw new TypeError(`${where}: person "${id}" is listed twice.`);
      const slackIds = stringList(slack, `${where}.slack`).map((value) => value.replace(/^slack:/, ''));
      for (const value of slackIds) {
        if (!slackIdPattern.test(value)) throw new TypeError(`${where}.slack: "${value}" is not U0123 or T0001/U0123.`);
        claim(`slack:${value}`, id, `Slack user ${value}`);
      }
      const emails = stringList(email, `${where}.email`).map((value) => value.replace(/^email:/, '').toLowerCase());
      for (const value of emails) {
        if (!emailPattern.test(value)) throw new TypeError(`${where}.email: "${value}" is not an email address.`);
        claim(`email:${value}`, id, `Email address ${value}`);
      }
      people.push({ id, slack: slackIds, email: emails });
    });
    return new PersonDirectory(people);
  }

  /** Whether any person is configured; when so, unmapped Slack users and addresses cannot decide. */
  get configured(): boolean {
    return this.byId.size > 0;
  }

  /** The person with this id. */
  person(id: string): Person | undefined {
    return this.byId.get(id);
  }

  /** The person a Slack user is, preferring an entry qualified with their workspace. */
  bySlackUser(userId: string, teamId: string | undefined): Person | undefined {
    return (teamId !== undefined ? this.bySlack.get(`${teamId}/${userId}`) : undefined) ?? this.bySlack.get(userId);
  }

  /** The person an email address is. */
  byEmailAddress(address: string): Person | undefined {
    return this.byEmail.get(address.toLowerCase());
  }

  /**
   * The person a channel name (`slack:U0123`, `email:ana@example.com`) stands for; undefined for a person id, a name
   * nobody in the map has, or a Slack user two people have in different workspaces.
   */
  personOfName(name: string): Person | undefined {
    const key = name.startsWith('email:') ? name.toLowerCase() : name;
    return this.byName.get(key) ?? undefined;
  }

  /**
   * Every name a person goes by in approver lists: the id and, for lists written before the map, the
   * channel identities (`slack:U0123`, `email:ana@example.com`).
   */
  namesOf(id: string): string[] {
    const person = this.byId.get(id);
    if (!person) return [id];
    return [
      id,
      ...person.slack.map((slack) => `slack:${slack.split('/').pop() as string}`),
      ...person.email.map((email) => `email:${email}`),
    ];
  }
}

function stringList(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && item.length > 0)) {
    throw new TypeError(`${where} must be an array of non-empty strings.`);
  }
  return value as string[];
}
