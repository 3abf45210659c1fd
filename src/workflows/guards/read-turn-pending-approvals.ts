import type { PendingToolApproval } from '../../protocol';
import { workflowIdOfApproval } from '../../protocol/approval-id';
import { inspectPayload, toolDataPayloadLimits } from './bounded-payload';

/** Most approvals one turn's signal may list (a model step's calls). */
const maxPendingListed = 200;

/** Most agent names in one approval's path (deeper trees are refused by their own limits long before). */
const maxPathLength = 20;

const requiredFields = ['approvalId', 'toolCallId', 'toolName', 'requestedAt', 'step'] as const;
/**
 * Every field a turn sends, and no other. Typed by the interface, so a field added to PendingToolApproval
 * fails the type check here until this reader knows it (a turn's own signal would be refused otherwise).
 */
const fieldsSent: Record<keyof PendingToolApproval, true> = {
  approvalId: true,
  toolCallId: true,
  toolName: true,
  input: true,
  requestedAt: true,
  expiresAt: true,
  step: true,
  inputDigest: true,
  signature: true,
  approvers: true,
  editors: true,
  quorum: true,
  votes: true,
  path: true,
  selfApprovalAllowed: true,
  agentToolCallId: true,
};
const knownFields = new Set<string>(Object.keys(fieldsSent));

/**
 * Reads a `turnPendingApprovals` signal as only a running turn sends it to its conversation or parent turn: exactly
 * `{ turnId, pending }`, for `currentTurnId`, each entry a well-formed pending approval whose id names that turn or
 * one of its sub-agents (`<turn id>/reader-1`: a turn lists its sub-agents' approvals with its own). Anything else
 * is refused, without throwing, with a reason.
 */
export function readTurnPendingApprovals(
  payload: unknown,
  currentTurnId: string | undefined,
): { pending: PendingToolApproval[] } | { invalid: string } {
  if (currentTurnId === undefined) return { invalid: 'no turn is running' };
  if (!isRecord(payload)) return { invalid: 'expected { turnId, pending }' };
  const keys = Object.keys(payload);
  if (keys.length !== 2 || !('turnId' in payload) || !('pending' in payload)) {
    return { invalid: 'expected exactly { turnId, pending }' };
  }
  if (payload.turnId !== currentTurnId) return { invalid: 'not from the running turn' };
  const inspection = inspectPayload(payload.pending, toolDataPayloadLimits);
  if (!inspection.bounded) return { invalid: `the list is ${inspection.reason}` };
  const { pending } = payload;
  if (!Array.isArray(pending) || pending.length > maxPendingListed) {
    return { invalid: `pending must be a list of at most ${maxPendingListed} approvals` };
  }
  const seen = new Set<string>();
  for (const [index, entry] of pending.entries()) {
    const problem = entryProblem(entry, currentTurnId);
    if (problem) return { invalid: `pending[${index}]: ${problem}` };
    const { approvalId } = entry as PendingToolApproval;
    if (seen.has(approvalId)) return { invalid: `pending[${index}]: approval listed twice` };
    seen.add(approvalId);
  }
  return { pending: pending as PendingToolApproval[] };
}

function entryProblem(entry: unknown, turnId: string): string | undefined {
  if (!isRecord(entry)) return 'not an object';
  const unknownField = Object.keys(entry).find((key) => !knownFields.has(key));
  if (unknownField !== undefined) return `unknown field "${unknownField.slice(0, 40)}"`;
  const missing = requiredFields.find((field) => !(field in entry));
  if (missing !== undefined) return `missing ${missing}`;
  const { approvalId, toolCallId, toolName, requestedAt, step } = entry;
  if (!isText(approvalId, 1000) || !ofTurnOrItsSubAgents(workflowIdOfApproval(approvalId), turnId)) {
    return 'not an approval of this turn or its sub-agents';
  }
  if (!isText(toolCallId, 1000) || !isText(toolName, 200)) return 'toolCallId and toolName must be short strings';
  if (!isText(requestedAt, 100)) return 'requestedAt must be a time';
  if (typeof step !== 'number' || !Number.isInteger(step) || step < 0) return 'step must be a whole number';
  const { expiresAt, inputDigest, signature, approvers, editors, quorum, votes, path } = entry;
  if (expiresAt !== undefined && !isText(expiresAt, 100)) return 'expiresAt must be a time';
  if (inputDigest !== undefined && !isText(inputDigest, 200)) return 'inputDigest must be a short string';
  if (signature !== undefined && !isText(signature, 1000)) return 'signature must be a short string';
  if (approvers !== undefined && !(Array.isArray(approvers) && approvers.every((who) => isText(who, 200)))) {
    return 'approvers must be a list of names';
  }
  if (editors !== undefined && !(Array.isArray(editors) && editors.every((who) => isText(who, 200)))) {
    return 'editors must be a list of names';
  }
  if (quorum !== undefined && (typeof quorum !== 'number' || !Number.isInteger(quorum) || quorum < 1)) {
    return 'quorum must be a whole number';
  }
  if (votes !== undefined && !(Array.isArray(votes) && votes.every(isVote)))
    return 'votes must be { approver, decidedAt }';
  if (
    path !== undefined &&
    !(Array.isArray(path) && path.length <= maxPathLength && path.every((name) => isText(name, 200)))
  ) {
    return `path must be a list of at most ${maxPathLength} agent names`;
  }
  if (entry.selfApprovalAllowed !== undefined && entry.selfApprovalAllowed !== false) {
    return 'selfApprovalAllowed may only be false';
  }
  if (entry.agentToolCallId !== undefined && !isText(entry.agentToolCallId, 1000)) {
    return 'agentToolCallId must be a short string';
  }
  return undefined;
}

/** Whether `workflowId` is the turn's own or one of its sub-agents' (`<turn id>/reader-1`, and theirs). */
function ofTurnOrItsSubAgents(workflowId: string | undefined, turnId: string): boolean {
  return workflowId !== undefined && (workflowId === turnId || workflowId.startsWith(`${turnId}/`));
}

function isVote(vote: unknown): boolean {
  return isRecord(vote) && Object.keys(vote).length === 2 && isText(vote.approver, 200) && isText(vote.decidedAt, 100);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isText(value: unknown, maxLength: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= maxLength;
}
