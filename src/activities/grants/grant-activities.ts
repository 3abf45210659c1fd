import { Context } from '@temporalio/activity';
import { GrantLedgerClient } from '../../client/grant-ledger-client';
import type { OperatorPolicy } from '../../policy';
import type { ToolRegistry } from '../../tools';
import type { GrantClaimer } from '../planning/plan-tool-calls';
import { checkGrantTerms, type CheckGrantTermsInput } from './check-grant-terms';
import type { MissingLedgerMemory } from './missing-ledger-memory';

/** The grant ledger's activity: it checks a grant where the tools and the operator's policy are known. */
export interface GrantActivities {
  /** Why the grant may not be given, or undefined (null over the wire). */
  checkGrantTerms(input: CheckGrantTermsInput): Promise<string | undefined>;
}

/**
 * The grant ledger's activities for a worker's tools and policy. `heardOfGrant` is told of each grant this worker
 * checks (the ledger exists from then on), before its terms are judged.
 */
export function createGrantActivities(dependencies: {
  registry: ToolRegistry;
  policy: OperatorPolicy;
  heardOfGrant?: () => void;
}): GrantActivities {
  return {
    checkGrantTerms: async (input) => {
      dependencies.heardOfGrant?.();
      return checkGrantTerms(dependencies, input);
    },
  };
}

/**
 * Claims a grant from inside a turn's model-step activity, through the worker's own Temporal client, on the ledger of
 * the task queue the turn runs on. With a `memory`, a task queue that had no ledger a moment ago is not asked again
 * until the memory ends or the worker hears of a grant ({@link MissingLedgerMemory}).
 */
export function claimingGrantsThroughLedger(memory?: MissingLedgerMemory): GrantClaimer {
  return async (input) => {
    if (memory?.remembersMissing()) return { covered: false };
    const sent = memory?.claimSent();
    const context = Context.current();
    const answer = await new GrantLedgerClient(context.client, context.info.taskQueue).claimIfLedger(input);
    if (answer === undefined) {
      if (sent !== undefined) memory?.foundNoLedger(sent);
      return { covered: false };
    }
    // The ledger exists: a claim sent before it started must not bring the memory back.
    memory?.heardOfGrant();
    return answer;
  };
}
