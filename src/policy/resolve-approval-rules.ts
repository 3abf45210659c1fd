import { durationToMilliseconds, type ApprovalRights, type ApprovalRules, type NotificationTarget } from '../protocol';
import type { OperatorPolicy, OperatorRules } from './operator-policy';
import { resolveExpiryWarning } from './resolve-expiry-warning';

/** What the caller of a turn asked for; it may only tighten the operator's rules. */
export interface CallerRules extends ApprovalRules {
  approvalTimeout?: string | number;
  onExpire?: 'deny' | 'fail';
}

/** The rules one approval runs under, and what of the caller's request was not honoured. */
export interface ResolvedApprovalRules {
  rights?: ApprovalRights;
  timeoutMs?: number;
  onExpire: 'deny' | 'fail';
  notify: NotificationTarget[];
  remindAfterMs?: number;
  escalateTo?: NotificationTarget[];
  /** Warn the `notify` targets this long before expiry (see {@link resolveExpiryWarning}). */
  warnBeforeExpiryMs?: number;
  /** Sentences for the turn's events: caller rules that would have loosened the operator's. */
  refused: string[];
}

/**
 * The rules for one call of `toolName`: the operator's defaults, the tool's own rules and the
 * operator's rules for the tool, in that order, then the caller's rules where they are stricter.
 * The one place that decides who may approve what.
 */
export function resolveApprovalRules(options: {
  policy: OperatorPolicy;
  toolName: string;
  /** Rules the tool was defined with (its author is the operator too). */
  toolRules?: ApprovalRules & { approvalTimeoutMs?: number; onExpire?: 'deny' | 'fail' };
  caller?: CallerRules;
  requester?: string;
}): ResolvedApprovalRules {
  const { policy, toolName, toolRules, caller, requester } = options;
  const toolPolicy = policy.tools?.[toolName];
  const operator: OperatorRules & { timeoutMs?: number } = {
    ...policy.defaults,
    ...withoutUndefined(toolRules ?? {}),
    // The policy's rules for the tool come last, its approvalTimeout too.
    ...(toolRules?.approvalTimeoutMs !== undefined &&
      toolPolicy?.approvalTimeout === undefined && { timeoutMs: toolRules.approvalTimeoutMs }),
    ...toolPolicy,
  };
  const refused: string[] = [];
  let approvers = operator.approvers;
  if (caller?.approvers) {
    if (!approvers) approvers = caller.approvers;
    else {
      const narrowed = caller.approvers.filter((person) => approvers?.includes(person));
      if (narrowed.length > 0) approvers = narrowed;
      else
        refused.push(
          `The turn's approvers (${caller.approvers.join(', ')}) are not among the operator's for ${toolName}; the operator's apply.`,
        );
    }
  }
  const editors = narrowedEditors(operator.editors, caller?.editors, toolName, refused);
  const operatorSelf = operator.allowSelfApproval ?? approvers === undefined;
  const allowSelfApproval = operatorSelf && caller?.allowSelfApproval !== false;
  if (caller?.allowSelfApproval === true && !operatorSelf)
    refused.push(`Self-approval stays off for ${toolName}: the operator does not allow it.`);
  const quorum = Math.max(operator.quorum ?? 1, caller?.quorum ?? 1);
  const operatorTimeout =
    operator.timeoutMs ??
    (operator.approvalTimeout !== undefined ? durationToMilliseconds(operator.approvalTimeout) : undefined);
  const callerTimeout =
    caller?.approvalTimeout !== undefined ? durationToMilliseconds(caller.approvalTimeout) : undefined;
  const timeoutMs = minimum(operatorTimeout, callerTimeout);
  const onExpire =
    operator.onExpire === 'fail' || (toolRules?.onExpire ?? caller?.onExpire) === 'fail' ? 'fail' : 'deny';
  if (caller?.notify?.length || caller?.escalateTo?.length) {
    refused.push(
      `Notification targets come from the operator's policy; the turn's own targets for ${toolName} were not used.`,
    );
  }
  // A reminder tells the operator's targets again and leads to escalation: the operator's to set. A caller may only
  // bring the operator's reminder sooner, never add one where the operator set none or put it off.
  const operatorRemindMs =
    operator.remindAfter !== undefined ? durationToMilliseconds(operator.remindAfter) : undefined;
  const callerRemindMs = caller?.remindAfter !== undefined ? durationToMilliseconds(caller.remindAfter) : undefined;
  const remindAfterMs = operatorRemindMs === undefined ? undefined : minimum(operatorRemindMs, callerRemindMs);
  if (callerRemindMs !== undefined && operatorRemindMs === undefined) {
    refused.push(`The turn's remindAfter for ${toolName} was not used: the operator sets no reminder for it.`);
  } else if (callerRemindMs !== undefined && operatorRemindMs !== undefined && callerRemindMs > operatorRemindMs) {
    refused.push(`The turn's remindAfter for ${toolName} is later than the operator's; the operator's applies.`);
  }
  const warning = resolveExpiryWarning({
    toolName,
    timeoutMs,
    hasTargets: (operator.notify ?? []).length > 0,
    ...(operator.warnBeforeExpiry !== undefined && { operator: operator.warnBeforeExpiry }),
    ...(caller?.warnBeforeExpiry !== undefined && { caller: caller.warnBeforeExpiry }),
  });
  refused.push(...warning.refused);
  const rights: ApprovalRights | undefined =
    approvers === undefined && editors === undefined && allowSelfApproval && quorum === 1
      ? undefined
      : {
          ...(approvers && { approvers }),
          ...(editors && { editors }),
          allowSelfApproval,
          quorum,
          ...(requester !== undefined && { requester }),
        };
  return {
    ...(rights && { rights }),
    ...(timeoutMs !== undefined && { timeoutMs }),
    onExpire,
    notify: operator.notify ?? [],
    ...(remindAfterMs !== undefined && { remindAfterMs }),
    ...(operator.escalateTo && { escalateTo: operator.escalateTo }),
    ...(warning.warnBeforeExpiryMs !== undefined && { warnBeforeExpiryMs: warning.warnBeforeExpiryMs }),
    refused,
  };
}

/**
 * Who may approve with changed input: the operator's editors, narrowed by the caller's. A caller can only take
 * editing away (an empty intersection leaves nobody), never grant it where the operator named nobody.
 */
function narrowedEditors(
  operator: readonly string[] | undefined,
  caller: readonly string[] | undefined,
  toolName: string,
  refused: string[],
): string[] | undefined {
  if (caller === undefined) return operator && [...operator];
  if (operator === undefined) {
    refused.push(`The turn's editors for ${toolName} were not used: the operator lets nobody edit its arguments.`);
    return undefined;
  }
  const narrowed = caller.filter((person) => operator.includes(person));
  if (narrowed.length === 0) {
    refused.push(
      `The turn's editors for ${toolName} (${caller.join(', ')}) are not among the operator's; nobody may edit its arguments.`,
    );
    return undefined;
  }
  return narrowed;
}

function minimum(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}
