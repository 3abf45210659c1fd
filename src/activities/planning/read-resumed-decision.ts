import type { DecisionBinding, ToolApprovalResponsePart } from '../../protocol';
import {
  signatureClockSkewMs,
  verifyBoundDecision,
  type TrustedDecisionKeys,
} from '../../protocol/verify-decision-signature';
import type { ResumedCall } from '../turn-activity-types';

/** A decision read from a resumed turn's messages, as the turn weighs it (without where its request came from). */
export type ResumedDecision = Omit<NonNullable<ResumedCall['response']>, 'issuedHere'>;

/**
 * Reads the decision a caller sent back in a new turn's messages: what it decided, who the gateway says decided
 * (`providerOptions.tollgate.approver`), and whether its gateway signature counts. It counts only when signed by a
 * trusted key for this turn (the one the messages start), this request, its tool and arguments, and no earlier than
 * this run started (`startedAt`, less the clock skew): a decision copied from another turn's messages or history counts
 * for nothing, and `signatureProblem` says why.
 *
 * @example
 * const decision = readResumedDecision(response, { workflowId, approvalId, toolName, argumentsDigest }, { keys, startedAt });
 * if (!decision.signed) note(decision.signatureProblem);
 */
export function readResumedDecision(
  response: Pick<ToolApprovalResponsePart, 'approved' | 'reason' | 'providerOptions'>,
  binding: DecisionBinding,
  { keys, startedAt, now = new Date() }: { keys: TrustedDecisionKeys; startedAt?: string; now?: Date },
): ResumedDecision {
  const tollgate = response.providerOptions?.tollgate as Record<string, unknown> | undefined;
  const approver = typeof tollgate?.approver === 'string' ? tollgate.approver : undefined;
  const verdict = verifyBoundDecision(
    {
      approved: response.approved,
      ...(response.reason !== undefined && { reason: response.reason }),
      ...(approver !== undefined && { approver }),
      ...(isSignatureShape(tollgate?.signature) && { signature: tollgate.signature }),
    },
    binding,
    keys,
    {
      notBefore: new Date((startedAt ? Date.parse(startedAt) : now.getTime()) - signatureClockSkewMs),
      notAfter: new Date(now.getTime() + signatureClockSkewMs),
    },
  );
  return {
    approved: response.approved,
    ...(response.reason !== undefined && { reason: response.reason }),
    ...(approver !== undefined && { approver }),
    signed: verdict.valid,
    ...(!verdict.valid && { signatureProblem: verdict.why }),
  };
}

/** A signature as the gateway writes it into `providerOptions.tollgate.signature`. */
function isSignatureShape(value: unknown): value is { keyId: string; signedAt: string; value: string } {
  if (typeof value !== 'object' || value === null) return false;
  const { keyId, signedAt, value: signed } = value as Record<string, unknown>;
  return [keyId, signedAt, signed].every(
    (field) => typeof field === 'string' && field.length > 0 && field.length <= 200,
  );
}
