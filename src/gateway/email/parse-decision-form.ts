import { GatewayError } from '../http/gateway-error';

/** The longest reason accepted, as for any decision. */
export const reasonLengthLimit = 2000;

/** What the confirmation form sends. */
export interface DecisionForm {
  /** Why, when the person said; the model reads it on a denial. */
  reason?: string;
}

/**
 * Reads the confirmation form's urlencoded body strictly: `reason` at most once and nothing else (an
 * unknown field, `__proto__` included, is a 400). An empty body is a form with no reason. The decision
 * and the approver are never read from the form: they come from the signed link.
 *
 * @example
 * const { reason } = parseDecisionForm('reason=not+during+the+freeze');
 */
export function parseDecisionForm(body: unknown): DecisionForm {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'string') {
    throw new GatewayError('unsupported-media-type', 'Send the form as application/x-www-form-urlencoded.');
  }
  const fields = new URLSearchParams(body);
  const errors: Array<{ field: string; message: string }> = [];
  for (const name of new Set(fields.keys())) {
    if (name !== 'reason') errors.push({ field: `body.${name}`, message: 'Unknown field.' });
  }
  const reasons = fields.getAll('reason');
  if (reasons.length > 1) errors.push({ field: 'body.reason', message: 'Send one reason.' });
  const reason = reasons[0]?.trim();
  if (reason !== undefined && reason.length > reasonLengthLimit) {
    errors.push({ field: 'body.reason', message: `At most ${reasonLengthLimit} characters.` });
  }
  if (errors.length > 0) {
    throw new GatewayError(
      'invalid-request',
      `The form is not valid: ${errors.map((error) => `${error.field}: ${error.message}`).join(' ')}`,
      {
        errors,
      },
    );
  }
  return reason ? { reason } : {};
}
