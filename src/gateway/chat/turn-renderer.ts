import type { UIMessage, UIMessageChunk } from 'ai';
import type {
  PendingToolApproval,
  ToolApprovalAuditEntry,
  ToolApprovalResponsePart,
  ToolResultOutput,
  ToolResultPart,
} from '../../protocol';
import { allowNotOffered } from './allow-offer';
import type { TurnSnapshot } from './turn-snapshot';

/** How far the client has a tool call: the UI part states, in the order they happen. */
const stages = { none: 0, input: 1, 'approval-requested': 2, 'approval-responded': 3, output: 4 } as const;
type Stage = (typeof stages)[keyof typeof stages];

interface StreamedText {
  id: string;
  sent: string;
  ended: boolean;
}

/**
 * Turns snapshots of one turn into UI message chunks for one assistant message, sending only what the client does
 * not have yet. A replay starts from nothing; a continuation starts from the client's own copy of the message, so a
 * request that carries decisions gets the rest of the turn and not a second copy of its beginning.
 *
 * Steps are the turn's assistant messages: each opens with `start-step`. Text and reasoning of the model call in
 * flight stream as deltas of its heartbeat; when the step lands in the turn's messages, only the rest is sent.
 *
 * @example
 * const renderer = new TurnRenderer(turnId);
 * for (const chunk of renderer.render(snapshot)) writer.write(chunk);
 */
export class TurnRenderer {
  private started = false;
  private steps = 0;
  private stepOpen = false;
  private readonly texts = new Map<string, StreamedText>();
  private readonly tools = new Map<string, Stage>();
  private readonly approvalIdsOfCalls = new Map<string, string>();
  /** Sub-agents' approvals sent as data parts, by approvalId: whether the client has them as waiting. */
  private readonly subAgentApprovals = new Map<string, boolean>();
  /** Sub-agents' approvals decided through this request: the stream goes on until the turn no longer lists them. */
  private readonly subAgentApprovalsDecided = new Set<string>();
  private resets = 0;

  constructor(
    /** The assistant message's id: the turn id, so that a replay replaces what a client already shows. */
    readonly messageId: string,
    /** The person the stream is for (the token's), so an approval says whether to offer them "Allow in this chat". */
    private readonly viewer?: string,
  ) {}

  /** Starts from what the client already shows of this message (a continuation after decisions). */
  static continuing(message: UIMessage, viewer?: string): TurnRenderer {
    const renderer = new TurnRenderer(message.id, viewer);
    renderer.started = true;
    for (const part of message.parts) {
      if (part.type === 'step-start') renderer.steps += 1;
      if (part.type === 'data-sub-agent-approval' && typeof part.id === 'string') {
        // One the page has decided still shows as waiting until the turn says it settled (or it is shown again).
        const state = (part.data as { state?: unknown } | undefined)?.state;
        renderer.subAgentApprovals.set(part.id, state === 'waiting' || state === 'responded');
      }
      if (!('toolCallId' in part) || !('state' in part)) continue;
      const state = String(part.state);
      const stage: Stage = state.startsWith('output-')
        ? stages.output
        : state === 'approval-requested' || state === 'approval-responded'
          ? stages['approval-requested']
          : state === 'input-available'
            ? stages.input
            : stages.none;
      renderer.tools.set(String(part.toolCallId), stage);
    }
    // Everything of the steps the client has is on screen; its text is complete.
    for (let step = 0; step < renderer.steps; step += 1) {
      for (const kind of ['text', 'reasoning']) {
        renderer.texts.set(`${kind}-${step}`, { id: '', sent: '', ended: true });
      }
    }
    renderer.stepOpen = renderer.steps > 0;
    return renderer;
  }

  /** The chunks that bring the client from what it has to `snapshot`. */
  render(snapshot: TurnSnapshot): UIMessageChunk[] {
    const chunks: UIMessageChunk[] = [];
    if (!this.started) {
      this.started = true;
      chunks.push({ type: 'start', messageId: this.messageId });
    }
    let step = -1;
    const results = new Map<string, ToolResultPart>();
    const responses = new Map<string, ToolApprovalResponsePart>();
    for (const message of snapshot.messages) {
      if (message.role === 'assistant') {
        step += 1;
        const parts =
          typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
        const reasoning = parts.flatMap((part) =>
          (part as { type: string }).type === 'reasoning' ? [(part as { text: string }).text] : [],
        );
        const text = parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
        if (parts.length > 0) this.openStep(step, chunks);
        if (reasoning.length > 0) this.streamText('reasoning', step, reasoning.join(''), true, chunks);
        if (text !== '') this.streamText('text', step, text, true, chunks);
        for (const part of parts) {
          if (part.type === 'tool-call') {
            if (this.stageOf(part.toolCallId) < stages.input) {
              chunks.push({
                type: 'tool-input-available',
                toolCallId: part.toolCallId,
                toolName: part.toolName,
                input: part.input ?? {},
                ...(part.providerExecuted && { providerExecuted: true }),
              });
              this.tools.set(part.toolCallId, stages.input);
            }
          } else if (part.type === 'tool-approval-request') {
            this.approvalIdsOfCalls.set(part.toolCallId, part.approvalId);
            const pending = snapshot.pending.find((approval) => approval.approvalId === part.approvalId);
            const recorded = snapshot.audit.find((entry) => entry.approvalId === part.approvalId);
            if (this.stageOf(part.toolCallId) < stages['approval-requested']) {
              chunks.push({
                type: 'tool-approval-request',
                approvalId: part.approvalId,
                toolCallId: part.toolCallId,
                ...signatureOf(part),
                approvalDescriptor: this.descriptorOf(pending ?? recorded, snapshot.requester),
              });
              this.tools.set(part.toolCallId, stages['approval-requested']);
            }
          } else if (part.type === 'tool-result') {
            results.set(part.toolCallId, part);
          }
        }
      } else if (message.role === 'tool') {
        for (const part of message.content) {
          if (part.type === 'tool-result') results.set(part.toolCallId, part);
          else if (part.type === 'tool-approval-response') responses.set(part.approvalId, part);
        }
      }
    }

    // Tools whose activity goes on to call the model: their results show before the turn records them.
    for (const part of snapshot.closed ? [] : (snapshot.streaming?.toolResults ?? [])) {
      if (!results.has(part.toolCallId)) results.set(part.toolCallId, part);
    }

    // Decisions show as soon as they are recorded, before the tool has run (and for denials, with the reason).
    for (const entry of snapshot.audit) {
      if (entry.decision === 'awaiting-quorum') continue;
      if (this.stageOf(entry.toolCallId) !== stages['approval-requested']) continue;
      if (this.approvalIdsOfCalls.get(entry.toolCallId) !== entry.approvalId) continue;
      chunks.push(approvalResponseChunk(entry));
      this.tools.set(entry.toolCallId, stages['approval-responded']);
    }
    // A turn read back from the conversation's transcript has no audit: its decisions are its messages' own.
    for (const [toolCallId, approvalId] of this.approvalIdsOfCalls) {
      const response = responses.get(approvalId);
      if (!response || this.stageOf(toolCallId) !== stages['approval-requested']) continue;
      chunks.push({
        type: 'tool-approval-response',
        approvalId,
        approved: response.approved,
        ...(response.reason !== undefined && { reason: response.reason }),
      });
      this.tools.set(toolCallId, stages['approval-responded']);
    }
    for (const [toolCallId, result] of results) {
      if (!this.tools.has(toolCallId) || this.stageOf(toolCallId) >= stages.output) continue;
      chunks.push(...outputChunks(toolCallId, result.output, result.providerOptions));
      this.tools.set(toolCallId, stages.output);
    }

    chunks.push(...this.subAgentApprovalChunks(snapshot));

    // The model call in flight: the next step, from its heartbeat.
    const streaming = snapshot.closed ? undefined : snapshot.streaming;
    if (streaming && (streaming.text !== '' || streaming.reasoning !== '')) {
      const next = step + 1;
      this.openStep(next, chunks);
      if (streaming.reasoning !== '') this.streamText('reasoning', next, streaming.reasoning, false, chunks);
      if (streaming.text !== '') {
        this.endText('reasoning', next, chunks);
        this.streamText('text', next, streaming.text, false, chunks);
      }
    }
    return chunks;
  }

  /**
   * True when the client has everything the turn can show until someone acts: the turn closed, or it waits only
   * for decisions or client outputs the client has already been shown.
   */
  isSettled(snapshot: TurnSnapshot): boolean {
    if (snapshot.closed) return true;
    if (snapshot.streaming) return false;
    if (snapshot.status === 'awaiting-approval') {
      // A sub-agent still at work may yet ask: the stream waits for it, so that every call that waits is shown.
      if ((snapshot.subAgentsWorking ?? 0) > 0) return false;
      return snapshot.pending.every(
        (approval) =>
          this.stageOf(approval.toolCallId) >= stages['approval-requested'] ||
          (this.subAgentApprovals.get(approval.approvalId) === true &&
            !this.subAgentApprovalsDecided.has(approval.approvalId)),
      );
    }
    if (snapshot.status === 'awaiting-tool-output') {
      return snapshot.awaitingOutput.every((call) => this.stageOf(call.toolCallId) >= stages.input);
    }
    return false;
  }

  /**
   * A sub-agent's call decided through this request: its sub-agent tells the turn a moment later, so the stream is
   * not settled while the turn still lists it.
   */
  subAgentApprovalDecided(approvalId: string): void {
    this.subAgentApprovalsDecided.add(approvalId);
  }

  /** Sends a sub-agent's call as waiting again when it next shows waiting (the page's decision on it was refused). */
  showSubAgentApprovalAgain(approvalId: string): void {
    if (this.subAgentApprovals.has(approvalId)) this.subAgentApprovals.set(approvalId, false);
  }

  /**
   * A sub-agent's call waiting under one of this turn's calls (its approval has a `path`) is no tool part of this
   * message: it streams as a `data-sub-agent-approval` part with the approvalId as its id, `state: 'waiting'` while it
   * waits and `'settled'` once it leaves the list (decided, expired, or its sub-agent ended), so the page shows it
   * inside the agent tool's call it waits under (`agentToolCallId`: this turn's call that started its sub-agent) and
   * decides it by approvalId.
   */
  private subAgentApprovalChunks(snapshot: TurnSnapshot): UIMessageChunk[] {
    const chunks: UIMessageChunk[] = [];
    const waiting = new Set<string>();
    for (const approval of snapshot.pending) {
      if (approval.path === undefined || approval.path.length === 0) continue;
      waiting.add(approval.approvalId);
      if (this.subAgentApprovals.get(approval.approvalId) === true) continue;
      this.subAgentApprovals.set(approval.approvalId, true);
      chunks.push({
        type: 'data-sub-agent-approval',
        id: approval.approvalId,
        data: {
          state: 'waiting',
          approvalId: approval.approvalId,
          path: approval.path,
          toolName: approval.toolName,
          toolCallId: approval.toolCallId,
          ...(approval.agentToolCallId !== undefined && { agentToolCallId: approval.agentToolCallId }),
          input: approval.input,
          requestedAt: approval.requestedAt,
          ...(approval.expiresAt !== undefined && { expiresAt: approval.expiresAt }),
        },
      });
    }
    for (const [approvalId, shownWaiting] of this.subAgentApprovals) {
      if (!shownWaiting || waiting.has(approvalId)) continue;
      this.subAgentApprovals.set(approvalId, false);
      chunks.push({ type: 'data-sub-agent-approval', id: approvalId, data: { state: 'settled', approvalId } });
    }
    return chunks;
  }

  /** The closing chunks: the open step's end and `finish`. */
  finish(snapshot: TurnSnapshot): UIMessageChunk[] {
    const chunks: UIMessageChunk[] = [];
    for (const [key, text] of this.texts)
      if (!text.ended) this.endText(key.split('-')[0] as 'text', Number(key.split('-')[1]), chunks);
    if (this.stepOpen) chunks.push({ type: 'finish-step' });
    this.stepOpen = false;
    const finishReason =
      snapshot.status === 'completed'
        ? 'stop'
        : snapshot.status === 'max-steps-reached'
          ? 'length'
          : snapshot.status === 'failed'
            ? 'error'
            : 'tool-calls';
    chunks.push({ type: 'finish', finishReason });
    return chunks;
  }

  /**
   * The approval card's descriptor, and `mayAllow: false` with a short `allowNote` saying why when the page should not
   * offer this stream's person "Allow in this chat" (their own request, above all).
   */
  private descriptorOf(
    approval: PendingToolApproval | undefined,
    requester: string | undefined,
  ): Record<string, unknown> | undefined {
    const descriptor = descriptorOf(approval);
    const allowNote = approval && allowNotOffered(approval, this.viewer, requester);
    return descriptor && allowNote !== undefined ? { ...descriptor, mayAllow: false, allowNote } : descriptor;
  }

  private stageOf(toolCallId: string): Stage {
    return this.tools.get(toolCallId) ?? stages.none;
  }

  private openStep(step: number, chunks: UIMessageChunk[]): void {
    while (this.steps <= step) {
      for (const kind of ['reasoning', 'text'] as const) this.endText(kind, this.steps - 1, chunks);
      if (this.stepOpen) chunks.push({ type: 'finish-step' });
      chunks.push({ type: 'start-step' });
      this.steps += 1;
      this.stepOpen = true;
    }
  }

  private streamText(
    kind: 'text' | 'reasoning',
    step: number,
    full: string,
    final: boolean,
    chunks: UIMessageChunk[],
  ): void {
    const key = `${kind}-${step}`;
    let text = this.texts.get(key);
    if (text?.ended) return;
    if (text && !full.startsWith(text.sent)) {
      // A retried model call said something else: take back this step's parts and stream it again.
      chunks.push({ type: 'reset-step' });
      for (const other of ['text', 'reasoning']) this.texts.delete(`${other}-${step}`);
      for (const [toolCallId, stage] of this.tools) if (stage === stages.none) this.tools.delete(toolCallId);
      this.resets += 1;
      text = undefined;
    }
    if (!text) {
      text = { id: `${kind}-${step}-${this.resets}`, sent: '', ended: false };
      this.texts.set(key, text);
      chunks.push({ type: kind === 'text' ? 'text-start' : 'reasoning-start', id: text.id });
    }
    const delta = full.slice(text.sent.length);
    if (delta !== '') {
      chunks.push(
        kind === 'text' ? { type: 'text-delta', id: text.id, delta } : { type: 'reasoning-delta', id: text.id, delta },
      );
      text.sent = full;
    }
    if (final) this.endText(kind, step, chunks);
  }

  private endText(kind: 'text' | 'reasoning', step: number, chunks: UIMessageChunk[]): void {
    const text = this.texts.get(`${kind}-${step}`);
    if (!text || text.ended) return;
    text.ended = true;
    chunks.push({ type: kind === 'text' ? 'text-end' : 'reasoning-end', id: text.id });
  }
}

/** What the approval card needs beyond the tool and its input: when it expires, who may decide. */
function descriptorOf(approval: PendingToolApproval | undefined): Record<string, unknown> | undefined {
  if (!approval) return undefined;
  return {
    requestedAt: approval.requestedAt,
    ...(approval.expiresAt !== undefined && { expiresAt: approval.expiresAt }),
    ...(approval.approvers !== undefined && { approvers: approval.approvers }),
    ...(approval.editors !== undefined && { editors: approval.editors }),
    ...(approval.quorum !== undefined && { quorum: approval.quorum }),
  };
}

function signatureOf(part: object): { signature?: string } {
  const signature = (part as { signature?: unknown }).signature;
  return typeof signature === 'string' ? { signature } : {};
}

function approvalResponseChunk(entry: ToolApprovalAuditEntry): UIMessageChunk {
  return {
    type: 'tool-approval-response',
    approvalId: entry.approvalId,
    approved: entry.decision === 'approved',
    ...(entry.reason !== undefined && { reason: entry.reason }),
    providerMetadata: {
      tollgate: {
        decision: entry.decision,
        decidedAt: entry.decidedAt,
        via: entry.via,
        ...(entry.approver !== undefined && { approver: entry.approver }),
        ...(entry.editedInput !== undefined && { editedInput: entry.editedInput as never }),
        ...(entry.editedBy !== undefined && { editedBy: entry.editedBy }),
      },
    },
  };
}

function outputChunks(
  toolCallId: string,
  output: ToolResultOutput,
  providerOptions: ToolResultPart['providerOptions'],
): UIMessageChunk[] {
  // A large output kept outside history arrives as a preview with a reference; the reference goes along.
  const contentRef = (providerOptions?.tollgate as { contentRef?: string } | undefined)?.contentRef;
  const providerMetadata = contentRef === undefined ? {} : { providerMetadata: { tollgate: { contentRef } } };
  switch (output.type) {
    case 'execution-denied':
      return [{ type: 'tool-output-denied', toolCallId }];
    case 'error-text':
      return [{ type: 'tool-output-error', toolCallId, errorText: output.value }];
    case 'error-json':
      return [{ type: 'tool-output-error', toolCallId, errorText: JSON.stringify(output.value) }];
    default:
      return [
        {
          type: 'tool-output-available',
          toolCallId,
          output: (output as { value: unknown }).value,
          ...providerMetadata,
        },
      ];
  }
}
