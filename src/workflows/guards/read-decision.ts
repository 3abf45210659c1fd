import type { ToolApprovalDecision } from '../../protocol';

const allowedKeys = new Set(['approvalId', 'approved', 'reason', 'approver', 'argumentsDigest', 'signature']);
/** From turn revision 7 a decision may also carry edited `input`. */
const allowedKeysWithInput = new Set([...allowedKeys, 'input']);

/**
 * Reads one decision sent by signal, update or message. Written out by hand rather than with a
 * schema library, because what a signal is read as is replayed: this check must never change for
 * executions already running (tighten it only behind `patched()`).
 */
export function readDecision(
  payload: unknown,
  options: { acceptsInput?: boolean } = {},
): ToolApprovalDecision | { invalid: string } {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    return { invalid: 'a decision must be an object { approvalId, approved, reason?, approver? }' };
  }
  const record = payload as Record<string, unknown>;
  const known = options.acceptsInput === true ? allowedKeysWithInput : allowedKeys;
  const unknownKey = Object.keys(record).find((key) => !known.has(key));
  if (unknownKey !== undefined) return { invalid: `unknown field "${unknownKey.slice(0, 40)}"` };
  const { approvalId, approved, reason, approver, argumentsDigest, signature, input } = record;
  if (typeof approvalId !== 'string' || approvalId.length === 0 || approvalId.length > 1000) {
    return { invalid: 'approvalId must be a string of 1 to 1000 characters' };
  }
  if (typeof approved !== 'boolean') return { invalid: 'approved must be true or false' };
  if (reason !== undefined && (typeof reason !== 'string' || reason.length > 2000)) {
    return { invalid: 'reason must be a string of at most 2000 characters' };
  }
  if (approver !== undefined && (typeof approver !== 'string' || approver.length === 0 || approver.length > 200)) {
    return { invalid: 'approver must be a string of 1 to 200 characters' };
  }
  if (argumentsDigest !== undefined && (typeof argumentsDigest !== 'string' || argumentsDigest.length > 100)) {
    return { invalid: 'argumentsDigest must be a string of at most 100 characters' };
  }
  if (signature !== undefined && !isSignature(signature)) {
    return { invalid: 'signature must be { keyId, signedAt, value } strings' };
  }
  // The payload was bounded before it was read (inspectPayload), so the input is plain data of bounded size.
  if (input !== undefined && approved !== true) return { invalid: 'input goes only with approved: true' };
  return {
    approvalId,
    approved,
    ...(reason !== undefined && { reason: reason as string }),
    ...(approver !== undefined && { approver: approver as string }),
    ...(argumentsDigest !== undefined && { argumentsDigest: argumentsDigest as string }),
    ...(signature !== undefined && { signature: signature as ToolApprovalDecision['signature'] }),
    ...(input !== undefined && { input: input as ToolApprovalDecision['input'] }),
  };
}

function isSignature(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { keyId, signedAt, value: signed, ...rest } = value as Record<string, unknown>;
  return (
    Object.keys(rest).length === 0 &&
    [keyId, signedAt, signed].every((field) => typeof field === 'string' && field.length > 0 && field.length <= 200)
  );
}
