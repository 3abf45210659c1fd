import { durationToMilliseconds, type Duration } from '../protocol';

/** Timeouts shorter than this get no warning unless the operator sets one: a warning would be noise. */
export const defaultWarningMinimumTimeoutMs = 10 * 60_000;
/** The default warning comes this share of the timeout before expiry… */
export const defaultWarningShare = 0.25;
/** …and never more than this before it. */
export const defaultWarningLeadLimitMs = 3_600_000;

/**
 * How long before expiry a request's `notify` targets are warned when the operator says nothing: a quarter of
 * the timeout, at most 1 h, for timeouts of 10 minutes or more (a 4 h approval warns 1 h ahead, a 20 min one 5 min
 * ahead, a 5 min one not at all).
 *
 * @example
 * defaultWarnBeforeExpiryMs(4 * 3_600_000); // 3_600_000
 */
export function defaultWarnBeforeExpiryMs(timeoutMs: number): number | undefined {
  if (timeoutMs < defaultWarningMinimumTimeoutMs) return undefined;
  return Math.min(defaultWarningLeadLimitMs, Math.round(timeoutMs * defaultWarningShare));
}

/** The warning one approval gets, and what of the caller's request was not honoured. */
export interface ResolvedExpiryWarning {
  /** Milliseconds before expiry; absent for no warning. */
  warnBeforeExpiryMs?: number;
  /** Sentences for the turn's events. */
  refused: string[];
}

/**
 * The warning before expiry for one approval: the operator's (`false` for none, the default when unset), which a
 * turn's caller may only bring earlier, never add or put off. None without a timeout or without anyone to tell, and
 * none that would come before the request itself.
 *
 * @example
 * resolveExpiryWarning({ toolName: 'deploy', timeoutMs: 7_200_000, hasTargets: true, operator: '30m' });
 * // { warnBeforeExpiryMs: 1_800_000, refused: [] }
 */
export function resolveExpiryWarning(options: {
  toolName: string;
  timeoutMs: number | undefined;
  /** Whether the approval has `notify` targets: a warning goes to them. */
  hasTargets: boolean;
  operator?: Duration | false;
  caller?: Duration;
}): ResolvedExpiryWarning {
  const { toolName, timeoutMs, hasTargets, operator, caller } = options;
  const refused: string[] = [];
  if (timeoutMs === undefined || !hasTargets) return { refused };
  const operatorMs =
    operator === false
      ? undefined
      : operator === undefined
        ? defaultWarnBeforeExpiryMs(timeoutMs)
        : durationToMilliseconds(operator);
  const callerMs = caller !== undefined ? durationToMilliseconds(caller) : undefined;
  let leadMs = operatorMs;
  if (callerMs !== undefined) {
    if (operatorMs === undefined)
      refused.push(`The turn's warnBeforeExpiry for ${toolName} was not used: the operator sets no warning for it.`);
    else if (callerMs < operatorMs)
      refused.push(`The turn's warnBeforeExpiry for ${toolName} is later than the operator's; the operator's applies.`);
    else leadMs = callerMs;
  }
  // A warning due when the request is made, or before it, says nothing the request does not.
  if (leadMs === undefined || leadMs >= timeoutMs) return { refused };
  return { warnBeforeExpiryMs: leadMs, refused };
}
