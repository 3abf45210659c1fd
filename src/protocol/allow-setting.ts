import { allowSchema, type Allow } from './grant-request';

/**
 * The operator's default "…and allow" terms, as one setting (`TOLLGATE_SLACK_ALLOW`): comma-separated `key=value`
 * pairs of the REST decision's `allow`, `for=1h,uses=10,scope=conversation`; a lone duration (`1h`) means `for=1h`.
 * Checked against the same schema as the REST body, so a setting that a REST caller could not send is refused at
 * start-up with the reason.
 *
 * @example
 * allowFromSetting('for=8h,scope=requester'); // { for: '8h', scope: 'requester' }
 */
export function allowFromSetting(text: string, name = 'TOLLGATE_SLACK_ALLOW'): Allow {
  const fields: Record<string, unknown> = {};
  for (const part of text
    .split(',')
    .map((piece) => piece.trim())
    .filter((piece) => piece.length > 0)) {
    const [key = '', value, ...rest] = part.split('=').map((piece) => piece.trim());
    if (value === undefined && Object.keys(fields).length === 0 && /^\d/.test(key)) {
      fields.for = key;
      continue;
    }
    if (value === undefined || rest.length > 0 || !['for', 'uses', 'scope'].includes(key) || key in fields) {
      throw new TypeError(
        `${name}: "${part}" is not one of for=<duration>, uses=<count>, scope=<conversation|requester|everyone>.`,
      );
    }
    fields[key] = key === 'uses' ? Number(value) : value;
  }
  const parsed = allowSchema.safeParse(fields);
  if (!parsed.success) {
    throw new TypeError(
      `${name}: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}.`,
    );
  }
  if (parsed.data.for === undefined && parsed.data.uses === undefined) {
    throw new TypeError(`${name}: a grant is bounded; give for=<duration>, uses=<count>, or both.`);
  }
  return parsed.data;
}

/** The terms in a few words, for a button or a note: `1h`, `10 uses`, `8h, 10 uses, requester`. */
export function allowLabel(allow: Allow): string {
  const words = [
    ...(allow.for !== undefined ? [typeof allow.for === 'number' ? `${allow.for} ms` : allow.for] : []),
    ...(allow.uses !== undefined ? [`${allow.uses} use${allow.uses === 1 ? '' : 's'}`] : []),
    ...(allow.scope !== undefined && allow.scope !== 'conversation'
      ? [allow.scope === 'everyone' ? 'everyone' : 'this requester']
      : []),
  ];
  return words.join(', ');
}
