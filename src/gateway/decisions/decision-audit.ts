import { randomBytes } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import { auditRecordName, auditRecordTime, type SharedRecords } from '../../store/shared-records';
import { auditPageSize } from '../http/gateway-schemas';
import { neutraliseText } from './neutralise-text';

/**
 * Through which door a decision attempt came; `message`: inside the messages of `POST /v1/turns` (a halted turn's
 * continuation); `grant`: a call a standing grant let through, recorded by the worker that claimed it.
 */
export type DecisionAttemptChannel = 'rest' | 'slack' | 'email' | 'chat' | 'message' | 'inbox' | 'grant';

/**
 * What became of an attempt: `recorded` (the turn took it), `repeat` (the same decision was already
 * recorded; nothing changed), `refused` (unknown, conflicting, expired, closed, invalid, not allowed),
 * `failed` (Temporal could not be asked; whether it applied is unknown, so the caller should retry), or
 * `forwarded` (sent inside a new turn's messages, bound to that turn; the turn's audit says whether it counted).
 */
export type DecisionAttemptOutcome = 'recorded' | 'repeat' | 'refused' | 'failed' | 'forwarded';

/** `approvalId` of an attempt that named no approval the gateway could read (an unverified request, a bad link). */
export const unknownApproval = '(unknown)';

/** `approver` of an attempt whose sender is not known (no valid token, signature, link or session). */
export const unauthenticatedSender = '(unauthenticated)';

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
  /** The input an approver asked the call to run with instead of the model's (see docs/editing-arguments.md). */
  editedInput?: unknown;
  /** What became of it. */
  outcome: DecisionAttemptOutcome;
  /** Why it was refused or failed: the problem kind and its detail. */
  refusal?: { code: string; detail: string };
  /**
   * The address the request came from (the gateway's view of the client: its socket, or the trusted proxy's word),
   * kept for refusals before a person was known.
   */
  from?: string;
  /**
   * Set on a line that stands for several refusals alike (same channel, cause and person, or all unauthenticated) in
   * one minute, past the first ten, which are kept one by one: `count` of them from `since`; this line is the last.
   */
  coalesced?: { count: number; since: string };
  /**
   * Set on a standing grant given or revoked (docs/asking-less.md), not a decision on one call: `approvalId` is the
   * approval it was given with, or `grant:<grantId>`; `approved` is true for a grant, false for a revocation. With
   * `use`, a call the grant let through without asking: `approver` is who gave the grant, `approvalId` the call's.
   */
  grant?: {
    action: 'grant' | 'revoke' | 'use';
    grantId?: string;
    /** What it covers: tools or an MCP server, scope, time and uses, as one line. */
    summary?: string;
  };
}

/** Which attempts to list. */
export interface DecisionAttemptFilter {
  approvalId?: string;
  workflowId?: string;
  /** Only attempts made at or after this time; a shared audit is then read from there, not from its start. */
  since?: Date;
}

/** One page of the shared audit: the attempts found, and where the next page starts when there may be more. */
export interface DecisionAttemptPage {
  attempts: DecisionAttempt[];
  /** Pass as `after` for the next page; absent when this page reached the end. */
  next?: string;
}

/** Shared records kept in memory once read (they never change); older ones are read again when asked for. */
const sharedCacheLimit = 20_000;

/**
 * Every decision attempt the gateway saw. A rejected Temporal update leaves nothing in the workflow's
 * history, so this is the only record of refusals. Kept in memory (the newest `memoryLimit`); when
 * `file` is set, appended to a JSONL file that nothing rewrites; when `shared` is set, written as one
 * record per attempt (`audit/<time>-<random>`) in the shared store location, so {@link DecisionAudit.read}
 * on any gateway naming the same store shows every gateway's attempts.
 *
 * @example
 * const audit = new DecisionAudit({ file: '/var/log/tollgate/decisions.jsonl' });
 * const everyGateway = new DecisionAudit({ shared: sharedRecordsFromUrl('s3://tollgate/prod') });
 * const gateway = await createGateway({ tollgate, tokens, audit });
 */
export class DecisionAudit {
  private readonly attempts: DecisionAttempt[] = [];
  private readonly file: string | undefined;
  private readonly memoryLimit: number;
  private readonly shared: SharedRecords | undefined;
  // Shared records never change once written: each is read once.
  private readonly sharedSeen = new Map<string, DecisionAttempt>();
  // Appends run one after another, so lines never interleave and keep the order of record().
  private writes: Promise<void> = Promise.resolve();

  constructor(options: { file?: string; memoryLimit?: number; shared?: SharedRecords } = {}) {
    this.file = options.file;
    this.memoryLimit = options.memoryLimit ?? 10_000;
    this.shared = options.shared;
  }

  /** Where attempts are kept beside memory, for the start-up check that keeps them from the tools. */
  get places(): { file?: string; sharedFolder?: string } {
    const folder = (this.shared as { folder?: unknown } | undefined)?.folder;
    return {
      ...(this.file !== undefined && { file: this.file }),
      ...(typeof folder === 'string' && { sharedFolder: folder }),
    };
  }

  /** Keeps an attempt; resolves once it is on disk (the file, the shared store) when one is configured. */
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
    await Promise.all([this.append(attempt), this.share(attempt)]);
  }

  private async append(attempt: DecisionAttempt): Promise<void> {
    const file = this.file;
    if (!file) return;
    const line = `${JSON.stringify(attempt)}\n`;
    const write = this.writes.then(() => appendFile(file, line, { encoding: 'utf8', mode: 0o600 }));
    this.writes = write.catch(() => undefined);
    await write;
  }

  private async share(attempt: DecisionAttempt): Promise<void> {
    if (!this.shared) return;
    // Named by the time it was written and a random suffix: listing returns records in time order.
    const name = auditRecordName(new Date(), randomBytes(6).toString('hex'));
    await this.shared.create(name, JSON.stringify(attempt));
    this.remember(name, attempt);
  }

  /**
   * Every attempt (with a shared store, every gateway's, in the order they were written; otherwise this gateway's,
   * as {@link DecisionAudit.list}). For large audits use {@link DecisionAudit.readPage}.
   */
  async read(filter: DecisionAttemptFilter = {}): Promise<DecisionAttempt[]> {
    if (!this.shared) return this.list(filter);
    const attempts: DecisionAttempt[] = [];
    let after: string | undefined;
    do {
      const page = await this.readPage(filter, { after, limit: auditPageSize.max });
      attempts.push(...page.attempts);
      after = page.next;
    } while (after !== undefined);
    return attempts;
  }

  /**
   * What `GET /v1/audit` answers: up to `limit` records after the cursor `after`, filtered, and the cursor of the
   * next page. Without a shared store the cursor is the position in this gateway's memory.
   */
  async readPage(
    filter: DecisionAttemptFilter = {},
    { after, limit = auditPageSize.default }: { after?: string; limit?: number } = {},
  ): Promise<DecisionAttemptPage> {
    const shared = this.shared;
    if (!shared) {
      const start = after === undefined ? 0 : Number(after);
      const window = this.attempts.slice(start, start + limit);
      const end = start + window.length;
      return {
        attempts: window.filter((attempt) => matches(attempt, filter)),
        ...(end < this.attempts.length && { next: String(end) }),
      };
    }
    // Records are named by the time they were written: a window's first page starts at its first moment.
    const from = after ?? (filter.since === undefined ? undefined : `audit/${auditRecordTime(filter.since)}`);
    const names = await shared.list('audit', { ...(from !== undefined && { after: from }), limit });
    const unseen = names.filter((name) => !this.sharedSeen.has(name));
    for (let start = 0; start < unseen.length; start += 16) {
      await Promise.all(
        unseen.slice(start, start + 16).map(async (name) => {
          const body = await shared.read(name);
          try {
            if (body) this.remember(name, JSON.parse(body) as DecisionAttempt);
          } catch {
            // Still being written by another gateway (a folder store): read again next time.
          }
        }),
      );
    }
    const attempts = names
      .map((name) => this.sharedSeen.get(name))
      .filter((attempt): attempt is DecisionAttempt => attempt !== undefined && matches(attempt, filter));
    const last = names.at(-1);
    return { attempts, ...(names.length === limit && last !== undefined && { next: last }) };
  }

  private remember(name: string, attempt: DecisionAttempt): void {
    this.sharedSeen.set(name, attempt);
    if (this.sharedSeen.size <= sharedCacheLimit) return;
    // The oldest first: a Map iterates in insertion order.
    for (const key of this.sharedSeen.keys()) {
      this.sharedSeen.delete(key);
      if (this.sharedSeen.size <= sharedCacheLimit) break;
    }
  }

  /** Attempts in the order they arrived, optionally for one approval or one turn. */
  list(filter: DecisionAttemptFilter = {}): DecisionAttempt[] {
    return this.attempts.filter((attempt) => matches(attempt, filter));
  }
}

function matches(attempt: DecisionAttempt, filter: DecisionAttemptFilter): boolean {
  return (
    (filter.approvalId === undefined || attempt.approvalId === filter.approvalId) &&
    (filter.workflowId === undefined || attempt.workflowId === filter.workflowId) &&
    (filter.since === undefined || Date.parse(attempt.at) >= filter.since.getTime())
  );
}
