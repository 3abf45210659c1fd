import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { LedgerClaimInput, LedgerGrantInput, LedgerRevokeInput } from '../../protocol/grant-request';
import type { StandingGrant } from '../../protocol/standing-grant';
import type { GrantClaim } from './grant-book';

// The grant ledger's contract: the gateway, the CLI and the worker's planning use these names.

/** Workflow type of the grant ledger. */
export const grantLedgerWorkflowType = 'tollgateGrantLedger';

/** The ledger of the workers on `taskQueue`: one per task queue, since grants are judged by its workers' tools. */
export function grantLedgerWorkflowId(taskQueue: string): string {
  return `tollgate-grants/${taskQueue}`;
}

/** Records a grant, after the worker checked it against the tools and the operator's policy; returns it. */
export const grantUpdate = defineUpdate<StandingGrant, [LedgerGrantInput]>('grant');

/** Lets one call through on a grant that covers it, counting a use, or answers `{ covered: false }`. */
export const claimGrantUpdate = defineUpdate<GrantClaim, [LedgerClaimInput]>('claimGrant');

/** Revokes a grant: it covers nothing from the moment this update returns. */
export const revokeGrantUpdate = defineUpdate<StandingGrant, [LedgerRevokeInput]>('revokeGrant');

/** The grants in force, and those that ended within the last day, newest first. */
export const grantsQuery = defineQuery<StandingGrant[]>('grants');
