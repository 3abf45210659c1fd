import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { CheckGrantTermsInput } from '../../activities/grants/check-grant-terms';
import { loadSchemaChecks } from '../guards/load-schema-checks';
import { GrantBook, type GrantBookSnapshot } from './grant-book';
import { claimGrantUpdate, grantsQuery, grantUpdate, revokeGrantUpdate } from './grant-ledger-definitions';

const { checkGrantTerms } = proxyActivities<{
  checkGrantTerms(input: CheckGrantTermsInput): Promise<string | undefined>;
}>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 5 },
  summary: 'check grant',
});

/** Updates one run takes before it continues as new (Temporal allows 2,000 per run; each adds a few events). */
const updatesPerRun = 500;

/**
 * The standing grants of one task queue's workers. Its updates are the only way to record, use or revoke a grant,
 * and Temporal runs them one at a time against one history: a use is counted once across every worker and gateway,
 * expiry is judged on the ledger's clock, a revocation holds from the moment its update returns, and grants survive
 * restarts of everything. It runs until it is terminated, continuing as new as its history grows.
 *
 * @example
 * await client.workflow.executeUpdateWithStart(grantUpdate, { args: [grant], startWorkflowOperation });
 */
export async function tollgateGrantLedger(carried?: GrantBookSnapshot): Promise<void> {
  const book = new GrantBook();
  if (isSnapshot(carried)) book.restore(carried);
  let updates = 0;
  setHandler(
    grantUpdate,
    async (input) => {
      updates += 1;
      const problem = await checkGrantTerms({
        terms: input.terms,
        grantor: { person: input.grantedBy, names: input.grantedByNames },
        ...(input.conversationRequester !== undefined && { conversationRequester: input.conversationRequester }),
      });
      if (problem !== undefined && problem !== null) {
        throw ApplicationFailure.create({ message: problem, type: 'GrantRefused', nonRetryable: true });
      }
      return book.grant(input, new Date());
    },
    { validator: (input) => loadSchemaChecks().checkLedgerInput('grant', input) },
  );
  setHandler(
    claimGrantUpdate,
    (input) => {
      updates += 1;
      return book.claim(input, new Date());
    },
    { validator: (input) => loadSchemaChecks().checkLedgerInput('claimGrant', input) },
  );
  setHandler(
    revokeGrantUpdate,
    (input) => {
      updates += 1;
      const grant = book.revoke(input, new Date());
      if (!grant) {
        throw ApplicationFailure.create({
          message: `No grant "${input.grantId}".`,
          type: 'UnknownGrant',
          nonRetryable: true,
        });
      }
      return grant;
    },
    { validator: (input) => loadSchemaChecks().checkLedgerInput('revokeGrant', input) },
  );
  setHandler(grantsQuery, () => book.list());
  for (;;) {
    // Wakes once a day to forget what ended long ago, or as soon as the history should be handed on.
    await condition(() => updates >= updatesPerRun || workflowInfo().continueAsNewSuggested, '1 day');
    book.forgetOld(new Date());
    if (updates >= updatesPerRun || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof tollgateGrantLedger>(book.snapshot());
    }
  }
}

/** What an earlier run handed over (or anything a starter passed: only arrays of the right names are taken). */
function isSnapshot(value: unknown): value is GrantBookSnapshot {
  if (typeof value !== 'object' || value === null) return false;
  const { grants, claims } = value as Record<string, unknown>;
  return Array.isArray(grants) && Array.isArray(claims);
}
