import {
  WithStartWorkflowOperation,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import type { GrantSignature, GrantTerms, LedgerClaimInput, SignedGrantFields, StandingGrant } from '../protocol';
import type { GrantClaim } from '../workflows/grants/grant-book';
import type { tollgateGrantLedger } from '../workflows/grants/grant-ledger';
import {
  claimGrantUpdate,
  grantLedgerWorkflowId,
  grantLedgerWorkflowType,
  grantsQuery,
  grantUpdate,
  revokeGrantUpdate,
} from '../workflows/grants/grant-ledger-definitions';

/** Why a grant was not recorded or revoked: refused by the rules, or unknown. */
export class GrantLedgerError extends Error {
  override readonly name = 'GrantLedgerError';
  constructor(
    readonly code: 'refused' | 'unknown-grant' | 'invalid',
    message: string,
  ) {
    super(message);
  }
}

/** Recognises a {@link GrantLedgerError} by name (Jest and the workflow sandbox break `instanceof`). */
export function isGrantLedgerError(error: unknown): error is GrantLedgerError {
  return (error as { name?: unknown } | null)?.name === 'GrantLedgerError';
}

/** Who gives a grant. */
export interface GrantGiver {
  /** Person id. */
  person: string;
  /** The person's names approver lists may use; the person id when absent. */
  names?: string[];
}

/**
 * The grant ledger of one task queue, as the gateway, the CLI and the worker's planning use it. The ledger starts with
 * its first grant; before that, nobody has granted anything, and claims and lists answer so without starting it.
 *
 * @example
 * const grants = new GrantLedgerClient(client, 'tollgate');
 * await grants.grant({ person: 'ana' }, { tools: ['bash'], scope: { type: 'everyone' }, forMs: 3_600_000 });
 */
export class GrantLedgerClient {
  constructor(
    private readonly client: Client,
    readonly taskQueue: string,
  ) {}

  /** The ledger's workflow id. */
  get workflowId(): string {
    return grantLedgerWorkflowId(this.taskQueue);
  }

  /** Records a grant once the worker has checked it; a {@link GrantLedgerError} `refused` says why not. */
  async grant(
    giver: GrantGiver,
    terms: GrantTerms,
    options: {
      grantId?: string;
      conversationRequester?: string;
      /** Signs the grant (the gateway's decision key); see `grantSignaturePayload`. */
      sign?: (fields: SignedGrantFields) => GrantSignature;
    } = {},
  ): Promise<StandingGrant> {
    const grantId = options.grantId ?? newGrantId();
    const grantedByNames = giver.names ?? [giver.person];
    const signature = options.sign?.({ grantId, terms, grantedBy: giver.person, grantedByNames });
    const start = new WithStartWorkflowOperation<typeof tollgateGrantLedger>(grantLedgerWorkflowType, {
      workflowId: this.workflowId,
      taskQueue: this.taskQueue,
      args: [],
      workflowIdConflictPolicy: 'USE_EXISTING',
      staticSummary: `Standing grants of task queue ${this.taskQueue}`,
    });
    try {
      return await this.client.workflow.executeUpdateWithStart(grantUpdate, {
        args: [
          {
            grantId,
            terms,
            grantedBy: giver.person,
            grantedByNames,
            ...(signature !== undefined && { signature }),
            ...(options.conversationRequester !== undefined && {
              conversationRequester: options.conversationRequester,
            }),
          },
        ],
        updateId: grantId,
        startWorkflowOperation: start,
      });
    } catch (error) {
      throw ledgerError(error);
    }
  }

  /** Lets a call through on a covering grant (one use), or `{ covered: false }` when none covers it. */
  async claim(input: LedgerClaimInput): Promise<GrantClaim> {
    return (await this.claimIfLedger(input)) ?? { covered: false };
  }

  /** As {@link claim}, but undefined when the task queue has no ledger (nobody has granted anything yet). */
  async claimIfLedger(input: LedgerClaimInput): Promise<GrantClaim | undefined> {
    try {
      return await this.client.workflow.getHandle(this.workflowId).executeUpdate(claimGrantUpdate, { args: [input] });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw ledgerError(error);
    }
  }

  /** Revokes a grant; it covers nothing once this returns. */
  async revoke(grantId: string, revokedBy: string): Promise<StandingGrant> {
    try {
      return await this.client.workflow
        .getHandle(this.workflowId)
        .executeUpdate(revokeGrantUpdate, { args: [{ grantId, revokedBy }] });
    } catch (error) {
      if (isNotFound(error)) throw new GrantLedgerError('unknown-grant', `No grant "${grantId}".`);
      throw ledgerError(error);
    }
  }

  /** The grants in force and those that ended within a day, newest first. */
  async list(): Promise<StandingGrant[]> {
    try {
      return await this.client.workflow.getHandle(this.workflowId).query(grantsQuery);
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
  }
}

/** A fresh grant id. */
export function newGrantId(): string {
  return `grant-${randomBytes(8).toString('hex')}`;
}

function isNotFound(error: unknown): boolean {
  if (error instanceof WorkflowNotFoundError || (error as Error | null)?.name === 'WorkflowNotFoundError') return true;
  // The ledger ended (terminated by an operator): nobody grants anything until the next grant starts it again.
  const text = String((error as Error | null)?.message ?? '');
  return /workflow execution already completed|not found/i.test(text);
}

function ledgerError(error: unknown): unknown {
  if (error instanceof WorkflowUpdateFailedError || (error as Error | null)?.name === 'WorkflowUpdateFailedError') {
    const cause = (error as { cause?: { type?: string; message?: string; name?: string } }).cause;
    if (cause?.type === 'GrantRefused') return new GrantLedgerError('refused', cause.message ?? 'Refused.');
    if (cause?.type === 'UnknownGrant') return new GrantLedgerError('unknown-grant', cause.message ?? 'No such grant.');
    // A validator's refusal: the ledger never admitted the update.
    return new GrantLedgerError('invalid', cause?.message ?? (error as Error).message);
  }
  return error;
}
