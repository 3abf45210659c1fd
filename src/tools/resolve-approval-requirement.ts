import type { ModelMessage } from '../protocol';

/** Microsoft Agent Framework's approval setting. */
export type ApprovalMode = 'always_require' | 'never_require';

/** The context a `needsApproval` function gets. */
export interface NeedsApprovalContext {
  /** The id of the call being checked. */
  toolCallId: string;
  /** The messages the model saw when it made the call. */
  messages: ModelMessage[];
}

/** A flag, or a function of the call that may do I/O. */
export type NeedsApproval<Input> =
  boolean | ((input: Input, context: NeedsApprovalContext) => boolean | PromiseLike<boolean>);

/** How the workflow treats a tool: ask always, never, or ask the worker per call. */
export type ApprovalRequirement = 'always' | 'never' | 'per-call';

/**
 * The one place where loose approval settings become one rule: `approvalMode` is an alias of a
 * boolean `needsApproval`; giving both, in disagreement, is an error; neither means no approval.
 */
export function resolveApprovalRequirement<Input>(settings: {
  name: string;
  needsApproval?: NeedsApproval<Input>;
  approvalMode?: ApprovalMode;
}): NeedsApproval<Input> {
  const { needsApproval, approvalMode } = settings;
  if (approvalMode !== undefined && approvalMode !== 'always_require' && approvalMode !== 'never_require') {
    throw new TypeError(
      `Tool "${settings.name}": approvalMode must be "always_require" or "never_require", got ${JSON.stringify(approvalMode)}.`,
    );
  }
  if (needsApproval !== undefined && typeof needsApproval !== 'boolean' && typeof needsApproval !== 'function') {
    throw new TypeError(`Tool "${settings.name}": needsApproval must be a boolean or a function.`);
  }
  const fromMode = approvalMode === undefined ? undefined : approvalMode === 'always_require';
  if (fromMode !== undefined && needsApproval !== undefined && needsApproval !== fromMode) {
    throw new TypeError(`Tool "${settings.name}": needsApproval and approvalMode disagree; set one of them.`);
  }
  return needsApproval ?? fromMode ?? false;
}

/** The requirement the workflow sees: static flags are decided in the workflow, functions in an activity. */
export function approvalRequirementOf(needsApproval: NeedsApproval<never>): ApprovalRequirement {
  if (typeof needsApproval === 'function') return 'per-call';
  return needsApproval ? 'always' : 'never';
}
