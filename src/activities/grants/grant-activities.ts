import { Context } from '@temporalio/activity';
import { GrantLedgerClient } from '../../client/grant-ledger-client';
import type { GrantClaim, LedgerClaimInput } from '../../protocol';
import type { OperatorPolicy } from '../../policy';
import type { ToolRegistry } from '../../tools';
import { checkGrantTerms, type CheckGrantTermsInput } from './check-grant-terms';

/** The grant ledger's activity: it checks a grant where the tools and the operator's policy are known. */
export interface GrantActivities {
  /** Why the grant may not be given, or undefined (null over the wire). */
  checkGrantTerms(input: CheckGrantTermsInput): Promise<string | undefined>;
}

/** The grant ledger's activities for a worker's tools and policy. */
export function createGrantActivities(dependencies: {
  registry: ToolRegistry;
  policy: OperatorPolicy;
}): GrantActivities {
  return { checkGrantTerms: async (input) => checkGrantTerms(dependencies, input) };
}

/**
 * Claims a grant from inside a turn's model-step activity, through the worker's own Temporal client, on the ledger of
 * the task queue the turn runs on.
 */
export function claimGrantThroughLedger(input: LedgerClaimInput): Promise<GrantClaim> {
  const context = Context.current();
  return new GrantLedgerClient(context.client, context.info.taskQueue).claim(input);
}
