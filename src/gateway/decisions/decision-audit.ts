import { appendFile } from 'node:fs/promises';
import { neutraliseText } from './neutralise-text';

/** Through which door a decision attempt came; `message`: inside the messages of `POST /v1/turns` (a halted turn's continuation). */
export type DecisionAttemptChannel = 'rest' | 'slack' | 'email' | 'chat' | 'message';

/**
 * What became of an attempt: `recorded` (the turn took it), `repeat` (the same decision was already
 * recorded; nothing changed), `refused` (unknown, conflicting, expired, closed, invalid, not allowed),
 * `failed` (Temporal could not be asked; whether it applied is unknown, so the caller should retry), or
 * `forwarded` (sent inside a new turn's messages, bound to that turn; the turn's audit says whether it counted).
 */
export type DecisionAttemptOutcome = 'recorded' | 'repeat' | 'refused' | 'failed' | 'forwarded';

/** One decision attempt, kept whatever its outcome. */
export interface DecisionAttempt {
  /** When the gateway received it (ISO 8601). */
  at: string;
  /** Who tried: the person the channel identity resolved to (the identity itself when it resolved to nobody). */
  approver: string;
  /** The channel identity they came as: `token:ana`, `slack:T0001/U0123`, `email:ana@example.com`. */
  identity?: string;
  /** Through which door. */
  channel: DecisionAttemptChannel;
  /** The approval decided on. */
  approvalId: string;
  /** Its turn, when the gateway got as far as knowing it. */
  workflowId?: string;
  /** The decision asked for. */
  approved: boolean;
  /** The reason sent with it. */
  reason?: string;
  /** What became of it. */
  outcome: DecisionAttemptOutcome;
  /** Why it was refused or failed: the problem kind and its detail. */
  refusal?: { code: string; detail: string };
}

/** Which attempts to list. */
export interface DecisionAttemptFilter {
  approvalId?: string;
  workflowId?: string;
}

/**
 * Every decision attempt the gateway saw. A rejected Temporal update leaves nothing in the workflow's
 * history, so this is the only record of refusals. Kept in memory (the newest `memoryLimit`) and, when
 * `file` is set, appended to a JSONL file that nothing rewrites.
 *
 * @example
 * const audit = new DecisionAudit({ file: '/var/log/tollgate/decisions.jsonl' });
 * const gateway = await createGateway({ tollgate, tokens, audit });
 */
export class DecisionAudit {
  private readonly attempts: DecisionAttempt[] = [];
  private readonly file: string | undefined;
  private readonly memoryLimit: number;
  // Appends run one after another, so lines never interleave and keep the order of record().
  private writes: Promise<void> = Promise.resolve();

  constructor(options: { file?: string; memoryLimit?: number } = {}) {
    this.file = options.file;
    this.memoryLimit = options.memoryLimit ?? 10_000;
  }

  /** Keeps an attempt; resolves once it is on disk when a file is configured. */
  async record(received: DecisionAttempt): Promise<void> {
    // Reasons and refusal details are text people wrote or quoted: neutralised before anyone reads them.
    const attempt: DecisionAttempt = {
      ...received,
      ...(received.reason !== undefined && { reason: neutraliseText(received.reason) }),
      ...(received.refusal && {
        refusal: { code: received.refusal.code, detail: neutraliseText(received.refusal.detail) },
      }),
    };
    this.attempts.push(attempt);
    if (this.attempts.length > this.memoryLimit) this.attempts.splice(0, this.attempts.length - this.memoryLimit);
    const file = this.file;
    if (!file) return;
    const line = `${JSON.stringify(attempt)}\n`;
    const write = this.writes.then(() => appendFile(file, line, { encoding: 'utf8', mode: 0o600 }));
    this.writes = write.catch(() => undefined);
    await write;
  }

  /** Attempts in the order they arrived, optionally for one approval or one turn. */
  list(filter: DecisionAttemptFilter = {}): DecisionAttempt[] {
    return this.attempts.filter(
      (attempt) =>
        (filter.approvalId === undefined || attempt.approvalId === filter.approvalId) &&
        (filter.workflowId === undefined || attempt.workflowId === filter.workflowId),
    );
  }
}
