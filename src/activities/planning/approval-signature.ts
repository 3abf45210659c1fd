import { createHmac, timingSafeEqual } from 'node:crypto';
import { inputDigestOf } from '../../protocol';

/** What an approval request's signature binds: the request, the call and its exact arguments. */
export interface SignedToolCall {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
}

export { inputDigestOf };

/**
 * Signs an approval request the way the AI SDK does with `experimental_toolApprovalSecret`, so a
 * transcript Tollgate signed verifies in the AI SDK and one the AI SDK signed verifies here.
 */
export function signToolApproval(secret: string, call: SignedToolCall): string {
  const payload = JSON.stringify([
    'ai-sdk-tool-approval-v1',
    call.approvalId,
    call.toolCallId,
    call.toolName,
    inputDigestOf(call.input),
  ]);
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

/** Whether `signature` was made with `secret` for exactly this call. The one place requests are verified. */
export function verifyToolApproval(secret: string, signature: string | undefined, call: SignedToolCall): boolean {
  if (signature === undefined) return false;
  const expected = Buffer.from(signToolApproval(secret, call));
  const given = Buffer.from(signature.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'));
  return expected.length === given.length && timingSafeEqual(expected, given);
}
