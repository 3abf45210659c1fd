import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, getToolName, isToolUIPart, type UIMessage } from 'ai';
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { argumentSummary } from '../../src/protocol/argument-summary';
import { errorSentence, statusSentence } from './readable';
import { subAgentCallOf, subAgentCallsByOwner, type SubAgentCallData } from './sub-agent-calls';

/** Where the gateway is and the bearer token to call it with; `npm run dev` writes them into the page. */
declare global {
  interface Window {
    tollgateChat: { api: string; token: string; chatId: string };
  }
}

const config = window.tollgateChat;

type Part = UIMessage['parts'][number];

/** The approval ids a message waits for a decision on: its own calls', and its sub-agents' not yet decided here. */
/** Why the gateway refused the last decision sent on a call that waits again, if it did. */
function refusedOf(part: Part, refused: ReadonlyMap<string, string>): string | undefined {
  if (!isToolUIPart(part) || part.state !== 'approval-requested') return undefined;
  return refused.get(part.approval.id);
}

function waitingApprovals(message: UIMessage | undefined): string[] {
  if (!message || message.role !== 'assistant') return [];
  return message.parts.flatMap((part) =>
    isToolUIPart(part) && part.state === 'approval-requested' && 'approval' in part && part.approval
      ? [part.approval.id]
      : subAgentCallOf(part)?.state === 'waiting'
        ? [subAgentCallOf(part)!.approvalId]
        : [],
  );
}

/** The sub-agents' calls `message` waits for, each read as its path ("writer → reader → writeFile"). */
function subAgentCallsWaiting(message: UIMessage): string[] {
  return message.parts.flatMap((part) => {
    const call = subAgentCallOf(part);
    return call?.state === 'waiting' ? [[...(call.path ?? []), call.toolName ?? 'a tool'].join(' → ')] : [];
  });
}

/**
 * A sub-agent's call, drawn inside the agent tool's call that led to it: the path, the arguments, and Approve and
 * Deny, which decide it by its approvalId (the sub-agent judges the decision as any other).
 */
/** A call's arguments, one line each, as both a tool call's card and a sub-agent's nested call show them. */
function Arguments({ input, testId }: { input: unknown; testId: string }) {
  return (
    <dl className="arguments" data-testid={testId}>
      {argumentSummary(input).map(({ name, value }) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function SubAgentCall({
  call,
  decide,
  busy,
}: {
  call: SubAgentCallData;
  decide: (approvalId: string, approved: boolean, reason?: string) => void;
  busy: boolean;
}) {
  const [reason, setReason] = useState('');
  const reasonId = useId();
  const tool = call.toolName ?? 'a tool';
  const onPath = [...(call.path ?? []), tool].join(' → ');
  const first = argumentSummary(call.input)[0];
  const named = first ? `${onPath} (${first.name}: ${first.value.slice(0, 60)})` : onPath;
  return (
    <section
      className={`tool sub-agent-call tool-${call.state}`}
      data-testid="sub-agent-call"
      data-state={call.state}
      aria-label={`Sub-agent call: ${onPath}`}
    >
      <div>
        <b data-testid="sub-agent-path">{onPath}</b>
        {call.expiresAt && call.state === 'waiting' && (
          <span className="note"> · expires {new Date(call.expiresAt).toLocaleString()}</span>
        )}
      </div>
      <Arguments input={call.input} testId="sub-agent-arguments" />
      {call.state === 'waiting' && (
        <div className="approval" role="group" aria-label={`Decision on ${named}`}>
          <button
            data-testid="sub-agent-approve"
            disabled={busy}
            aria-label={`Approve ${named}`}
            onClick={() => decide(call.approvalId, true)}
          >
            Approve
          </button>
          <label htmlFor={reasonId}>Reason for denying {tool} (optional)</label>
          <input
            id={reasonId}
            data-testid="sub-agent-reason"
            value={reason}
            onChange={(event) => setReason(event.target.value)}
          />
          <button
            data-testid="sub-agent-deny"
            disabled={busy}
            aria-label={`Deny ${named}`}
            onClick={() => decide(call.approvalId, false, reason || undefined)}
          >
            Deny
          </button>
        </div>
      )}
      {call.state === 'responded' && (
        <div className="note" data-testid="sub-agent-decided">
          {call.approved ? 'Approved; the sub-agent goes on…' : `Denied${call.reason ? `: ${call.reason}` : ''}.`}
        </div>
      )}
      {call.state === 'settled' && (
        <div className="note" data-testid="sub-agent-settled">
          Decided; the sub-agent has it.
        </div>
      )}
    </section>
  );
}

function ToolCall({
  part,
  decide,
  busy,
  unsent,
  othersWaiting,
  refused,
  children,
}: {
  part: Part;
  decide: (id: string, approved: boolean, reason?: string, input?: unknown, allowInChat?: boolean) => void;
  /**
   * A response is streaming in. After a reload that is the waiting turn's message coming back, which replaces
   * the part: a decision clicked meanwhile would be overwritten, so the buttons wait for the stream to end.
   */
  busy: boolean;
  /** Decisions clicked but not yet sent to the gateway. */
  unsent: ReadonlySet<string>;
  /** Other calls of the same message still wait for a decision. */
  othersWaiting: boolean;
  /** Why the gateway refused the decision last sent on this call, which waits again. */
  refused?: string;
  /** What the call's sub-agents ask, drawn inside it. */
  children?: ReactNode;
}) {
  const [reason, setReason] = useState('');
  const reasonId = useId();
  /** The arguments as the editor is changing them (JSON text), while the edit box is open. */
  const [editing, setEditing] = useState<string>();
  const [editProblem, setEditProblem] = useState<string>();
  const editId = useId();
  if (!isToolUIPart(part)) return null;
  const tool = getToolName(part);
  const approval = 'approval' in part ? part.approval : undefined;
  const decision = (part as { callProviderMetadata?: { tollgate?: { decision?: string } } }).callProviderMetadata
    ?.tollgate?.decision;
  // Named by tool and first argument, so two calls of one tool have buttons a screen reader tells apart.
  const first = argumentSummary(part.input)[0];
  const call = first ? `${tool} (${first.name}: ${first.value.slice(0, 60)})` : tool;
  const descriptor = (
    approval as
      { descriptor?: { expiresAt?: string; editors?: string[]; mayAllow?: boolean; allowNote?: string } } | undefined
  )?.descriptor;
  // The gateway says when not to offer "Allow in this chat" to this user (their own request, above all); it still
  // judges every grant.
  const mayAllow = descriptor?.mayAllow !== false;
  const tollgate = (part as { callProviderMetadata?: { tollgate?: { editedInput?: unknown; editedBy?: string } } })
    .callProviderMetadata?.tollgate;
  // The operator named who may edit; the gateway checks that this user is one of them.
  const mayEdit = (descriptor?.editors?.length ?? 0) > 0;
  const approveEdited = (id: string) => {
    let input: unknown;
    try {
      input = JSON.parse(editing ?? '');
    } catch (problem) {
      setEditProblem(`The arguments are not JSON: ${(problem as Error).message}`);
      return;
    }
    setEditProblem(undefined);
    setEditing(undefined);
    decide(id, true, reason || undefined, input);
  };
  return (
    <section
      className={`tool tool-${part.state}`}
      data-testid="tool"
      data-state={part.state}
      aria-label={`Tool call: ${tool}`}
    >
      <div>
        <b>{tool}</b>
        {descriptor?.expiresAt && part.state === 'approval-requested' && (
          <span className="note"> · expires {new Date(descriptor.expiresAt).toLocaleString()}</span>
        )}
      </div>
      <Arguments input={part.input} testId="arguments" />
      <details>
        <summary>Raw input</summary>
        <pre data-testid="raw-input">{JSON.stringify(part.input, null, 2)}</pre>
      </details>
      {part.state === 'approval-requested' && approval && (
        <div className="approval" role="group" aria-label={`Decision on ${call}`}>
          {refused && (
            <p className="error" role="alert" data-testid="refused" style={{ flexBasis: '100%', margin: 0 }}>
              Not done: {refused}
            </p>
          )}
          <button
            data-testid="approve"
            disabled={busy}
            aria-label={`Approve ${call}`}
            onClick={() => decide(approval.id, true)}
          >
            Approve
          </button>
          {mayAllow && (
            <button
              data-testid="allow-in-chat"
              disabled={busy}
              aria-label={`Allow ${tool} in this chat, approving ${call}`}
              title={`Approve, and let later calls of ${tool} in this chat run without asking for 24 hours`}
              onClick={() => decide(approval.id, true, undefined, undefined, true)}
            >
              Allow in this chat
            </button>
          )}
          <label htmlFor={reasonId}>Reason for denying {tool} (optional)</label>
          <input
            id={reasonId}
            data-testid="reason"
            value={reason}
            onChange={(event) => setReason(event.target.value)}
          />
          <button
            data-testid="deny"
            disabled={busy}
            aria-label={`Deny ${call}`}
            onClick={() => decide(approval.id, false, reason || undefined)}
          >
            Deny
          </button>
          {!mayAllow && descriptor?.allowNote && (
            <span className="note" data-testid="allow-note">
              {descriptor.allowNote}
            </span>
          )}
          {mayEdit && editing === undefined && (
            <button
              data-testid="edit"
              disabled={busy}
              aria-label={`Edit the arguments of ${call}`}
              onClick={() => setEditing(JSON.stringify(part.input ?? {}, null, 2))}
            >
              Edit
            </button>
          )}
          {editing !== undefined && (
            <div
              className="edit"
              data-testid="edit-box"
              style={{ flexBasis: '100%', display: 'flex', flexDirection: 'column', gap: '.3rem' }}
            >
              <label htmlFor={editId}>Arguments {tool} runs with if you approve (JSON)</label>
              <textarea
                id={editId}
                data-testid="edit-input"
                rows={6}
                value={editing}
                style={{ width: '100%', boxSizing: 'border-box', fontFamily: 'monospace' }}
                onChange={(event) => {
                  setEditing(event.target.value);
                  setEditProblem(undefined);
                }}
              />
              {editProblem && (
                <p className="error" role="alert" data-testid="edit-problem">
                  {editProblem}
                </p>
              )}
              <div style={{ display: 'flex', gap: '.4rem' }}>
                <button
                  data-testid="approve-edited"
                  disabled={busy}
                  aria-label={`Approve ${tool} with the edited arguments`}
                  onClick={() => approveEdited(approval.id)}
                >
                  Approve with these arguments
                </button>
                <button data-testid="cancel-edit" onClick={() => setEditing(undefined)}>
                  Cancel
                </button>
              </div>
            </div>
          )}
        </div>
      )}
      {part.state === 'approval-responded' && (
        <div className="note" data-testid="decided">
          {approval && unsent.has(approval.id)
            ? 'Sending your decision…'
            : approval?.approved && tollgate?.editedInput !== undefined
              ? `Approved with edited arguments ${JSON.stringify(tollgate.editedInput)}${othersWaiting ? '; it runs once the other waiting calls are decided.' : '; running…'}`
              : approval?.approved
                ? othersWaiting
                  ? 'Approved; it runs once the other waiting calls are decided.'
                  : 'Approved; running…'
                : 'Denied.'}
        </div>
      )}
      {tollgate?.editedInput !== undefined && part.state !== 'approval-responded' && (
        <div className="note" data-testid="edited">
          Approved with edited arguments{tollgate.editedBy ? ` by ${tollgate.editedBy}` : ''}:{' '}
          {argumentSummary(tollgate.editedInput)
            .map(({ name, value }) => `${name} ${value}`)
            .join(', ')}
        </div>
      )}
      {children}
      {part.state === 'output-available' && <pre data-testid="output">{JSON.stringify(part.output, null, 2)}</pre>}
      {part.state === 'output-error' && <pre className="error">{part.errorText}</pre>}
      {part.state === 'output-denied' && (
        <div className="note" data-testid="denied">
          {decision === 'expired' ? 'Expired' : 'Denied'}
          {approval?.reason ? `: ${approval.reason}` : ''}
        </div>
      )}
    </section>
  );
}

/**
 * The chat's earlier exchanges, from the gateway: `useChat` reads its initial messages once, so the chat waits for
 * them. An unknown chat (404) starts empty.
 */
async function loadHistory(): Promise<UIMessage[]> {
  const response = await fetch(`${config.api}/${encodeURIComponent(config.chatId)}/messages`, {
    headers: { authorization: `Bearer ${config.token}` },
  });
  if (response.status === 404) return [];
  if (!response.ok) {
    throw new Error(`The chat's history did not load: ${errorSentence(await response.text())}`);
  }
  return (await response.json()) as UIMessage[];
}

function App() {
  const [history, setHistory] = useState<{ messages: UIMessage[] } | { error: string }>();
  useEffect(() => {
    loadHistory().then(
      (messages) => setHistory({ messages }),
      (error: Error) => setHistory({ error: error.message }),
    );
  }, []);
  if (history === undefined) return <p className="hint">Loading the chat…</p>;
  if ('error' in history) {
    return (
      <p className="error" data-testid="error" role="alert">
        {history.error}
      </p>
    );
  }
  return <Chat initialMessages={history.messages} />;
}

/**
 * Splits a loaded history: user messages after an assistant message that waits for approvals are queued in the
 * conversation (answered once the approvals are decided), so they show as queued, below the approval.
 */
function splitQueued(messages: UIMessage[]): { shown: UIMessage[]; queued: UIMessage[] } {
  let end = messages.length;
  while (end > 0 && messages[end - 1]?.role === 'user') end -= 1;
  if (end === messages.length || waitingApprovals(messages[end - 1]).length === 0)
    return { shown: messages, queued: [] };
  return { shown: messages.slice(0, end), queued: messages.slice(end) };
}

/** Where this tab keeps messages it queued and has not sent yet, so a reload shows them (and sends them) still. */
const queuedStorageKey = `tollgate-chat-queued:${config.chatId}`;

function loadLocalQueued(): string[] {
  try {
    const stored: unknown = JSON.parse(sessionStorage.getItem(queuedStorageKey) ?? '[]');
    return Array.isArray(stored) ? stored.filter((text): text is string => typeof text === 'string') : [];
  } catch {
    return [];
  }
}

function saveLocalQueued(texts: string[]): void {
  try {
    if (texts.length > 0) sessionStorage.setItem(queuedStorageKey, JSON.stringify(texts));
    else sessionStorage.removeItem(queuedStorageKey);
  } catch {
    // Storage off or full: the queue still works until a reload.
  }
}

function Chat({ initialMessages }: { initialMessages: UIMessage[] }) {
  const [input, setInput] = useState('');
  const [start] = useState(() => splitQueued(initialMessages));
  /** Messages the conversation already holds in its queue (from the history): answered after the approval. */
  const [serverQueued, setServerQueued] = useState<UIMessage[]>(start.queued);
  /**
   * Messages typed while an approval waits: sent once it is decided and its turn has ended. Kept in this tab's
   * sessionStorage until sent, so a reload neither loses them nor hides them.
   */
  const [localQueued, setLocalQueued] = useState<string[]>(loadLocalQueued);
  useEffect(() => saveLocalQueued(localQueued), [localQueued]);
  /** Decisions clicked and not yet sent: "Approved" shows only once a decision is on its way. */
  const unsent = useRef(new Set<string>());
  /** The decisions the last request sent: if the gateway refuses, their calls wait again. */
  const sent = useRef(new Set<string>());
  /** Why the gateway refused a call's last decision, by approval id, shown on its card until it is decided again. */
  const [refused, setRefused] = useState<ReadonlyMap<string, string>>(new Map());
  const { messages, sendMessage, addToolApprovalResponse, status, error, setMessages, resumeStream } = useChat({
    id: config.chatId,
    // The earlier turns, then the turn in progress again (its message replaces the one the history holds): resumed
    // below, once, with the buttons held until it has answered.
    messages: start.shown,
    transport: new DefaultChatTransport({
      api: config.api,
      headers: { authorization: `Bearer ${config.token}` },
      // The conversation lives in Tollgate: send only the message the request is about, not the whole chat.
      prepareSendMessagesRequest: ({ id, messages: all, trigger, messageId }) => {
        const about = all.find((message) => message.id === messageId && message.role === 'assistant') ?? all.at(-1);
        sent.current = new Set();
        for (const part of about?.parts ?? []) {
          if (isToolUIPart(part) && part.state === 'approval-responded' && unsent.current.delete(part.approval.id)) {
            sent.current.add(part.approval.id);
          }
        }
        return { body: { id, messages: about ? [about] : [], trigger, messageId } };
      },
    }),
    // Each decision goes as soon as it is made, so none waits in this page for the others (a reload would lose it).
    // A message the gateway refused (4xx) never reached the conversation: take it off the chat, back into the box.
    onError: (refusal) => {
      waitAgainAfterRefusal(errorSentence(refusal.message));
      const statusCode = (refusal as { statusCode?: number }).statusCode;
      if (statusCode === undefined || statusCode < 400 || statusCode >= 500) return;
      setMessages((all) => {
        const last = all.at(-1);
        if (last?.role !== 'user') return all;
        setInput(last.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n'));
        return all.slice(0, -1);
      });
    },
    sendAutomaticallyWhen: ({ messages: all }) =>
      all.some((message) =>
        message.parts.some(
          (part) => isToolUIPart(part) && part.state === 'approval-responded' && unsent.current.has(part.approval.id),
        ),
      ),
  });
  // Until the first resume has answered, the waiting turn's message shown is the history's: a decision clicked on it
  // then would be replaced with the resumed one and lost, so the buttons wait for it (useChat's own `resume` starts
  // in an effect after the first render, leaving them live for a moment).
  const [resumed, setResumed] = useState(false);
  useEffect(() => {
    void resumeStream().finally(() => setResumed(true));
    // Once, on mount, as `resume: true` would.
  }, []);
  const busy = !resumed || status === 'streaming' || status === 'submitted';
  const lastAssistant = messages.findLast((message) => message.role === 'assistant');
  const waiting = waitingApprovals(lastAssistant);
  const blocked = waiting.length > 0 || busy;
  /**
   * The gateway refused what the last request sent: the calls it decided and the gateway did not confirm (a recorded
   * decision comes back with when it was decided) wait again, with the reason on their cards, not "Approved; running…".
   */
  const waitAgainAfterRefusal = (reason: string) => {
    const justSent = sent.current;
    sent.current = new Set();
    const again = new Set<string>();
    setMessages((all) =>
      all.map((message) => ({
        ...message,
        parts: message.parts.map((part) => {
          if (!isToolUIPart(part) || part.state !== 'approval-responded' || !justSent.has(part.approval.id)) {
            return part;
          }
          const metadata = (part as { callProviderMetadata?: { tollgate?: { decidedAt?: unknown } } })
            .callProviderMetadata;
          if (metadata?.tollgate?.decidedAt !== undefined) return part;
          again.add(part.approval.id);
          // As it was asked: without this page's answer, and without the marks the page added to it (allow, edit).
          const asked: Record<string, unknown> = { ...part.approval };
          delete asked.approved;
          delete asked.reason;
          const otherMetadata: Record<string, unknown> = { ...metadata };
          delete otherMetadata.tollgate;
          return { ...part, state: 'approval-requested', approval: asked, callProviderMetadata: otherMetadata } as Part;
        }),
      })),
    );
    setRefused((before) => new Map([...before, ...[...again].map((id) => [id, reason] as const)]));
  };
  const decide = (id: string, approved: boolean, reason?: string, input?: unknown, allowInChat?: boolean) => {
    unsent.current.add(id);
    setRefused((before) => {
      if (!before.has(id)) return before;
      const after = new Map(before);
      after.delete(id);
      return after;
    });
    if (input !== undefined || allowInChat) {
      // useChat's approval response has no field for changed arguments: they ride in the call's metadata, which the
      // decision keeps when it is sent (the gateway checks the right to edit and the tool's schema).
      setMessages((all) =>
        all.map((message) => ({
          ...message,
          parts: message.parts.map((part) => {
            if (!isToolUIPart(part) || !('approval' in part) || part.approval?.id !== id) return part;
            const metadata = (part as { callProviderMetadata?: Record<string, Record<string, unknown>> })
              .callProviderMetadata;
            return {
              ...part,
              callProviderMetadata: {
                ...metadata,
                tollgate: {
                  ...metadata?.tollgate,
                  ...(input !== undefined && { editedInput: input }),
                  // "Allow in this chat": approve, and grant later calls of the tool in this conversation.
                  ...(allowInChat && { allowInChat: true }),
                },
              },
            } as Part;
          }),
        })),
      );
    }
    void addToolApprovalResponse({ id, approved, ...(reason !== undefined && { reason }) });
  };

  /**
   * A decision on a sub-agent's call: marked on its part, and the turn's message sent, as useChat sends one with an
   * approval response (the gateway decides it by approvalId and streams the turn on).
   */
  const decideSubAgentCall = (approvalId: string, approved: boolean, reason?: string) => {
    setMessages((all) =>
      all.map((message) => ({
        ...message,
        parts: message.parts.map((part) => {
          const call = subAgentCallOf(part);
          if (call?.approvalId !== approvalId || call.state !== 'waiting') return part;
          return {
            ...part,
            data: { ...call, state: 'responded', approved, ...(reason !== undefined && { reason }) },
          } as Part;
        }),
      })),
    );
    void sendMessage();
  };

  const latest = useRef(messages);
  latest.current = messages;
  /**
   * Streams the queued turn whose user message is `userMessageId`. Between two turns the conversation may not have
   * started it yet (the resume route answers 204), so it tries again for a while.
   */
  const followQueuedTurn = async (userMessageId: string) => {
    for (let attempt = 0; attempt < 40; attempt += 1) {
      await resumeStream();
      if (latest.current.at(-1)?.id !== userMessageId) return;
      // Nothing runs: the turn has not started yet, or it has already ended (its answer is in the history).
      const history = await loadHistory().catch(() => undefined);
      const answered = history && history.findIndex((message) => message.id === userMessageId) < history.length - 1;
      if (history && answered) {
        setMessages(splitQueued(history).shown);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };

  // Once the approval is decided and its turn has ended: the conversation's queued turn streams, then ours are sent.
  useEffect(() => {
    if (status !== 'ready' || waiting.length > 0) return;
    const [next, ...rest] = serverQueued;
    if (next) {
      setServerQueued(rest);
      setMessages((all) => [...all, next]);
      void followQueuedTurn(next.id);
      return;
    }
    const [text, ...later] = localQueued;
    if (text !== undefined) {
      setLocalQueued(later);
      void sendMessage({ text });
    }
  }, [status, waiting.length, serverQueued, localQueued, setMessages, sendMessage]);

  // New approvals, announced to screen readers.
  const announcement =
    waiting.length === 0
      ? ''
      : `${waiting.length === 1 ? 'A tool call waits' : `${waiting.length} tool calls wait`} for your approval: ${
          lastAssistant?.parts
            .flatMap((part) => (isToolUIPart(part) && part.state === 'approval-requested' ? [getToolName(part)] : []))
            .concat(subAgentCallsWaiting(lastAssistant))
            .join(', ') ?? ''
        }.`;
  const queuedTexts = [
    ...serverQueued.map((message) =>
      message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n'),
    ),
    ...localQueued,
  ];

  return (
    <main>
      <h1>Tollgate chat</h1>
      <p className="hint">
        Try <code>write hello to notes.txt</code>: the call waits for your approval, through reloads and restarts.
      </p>
      {messages.map((message) => (
        <div key={message.id} className={`message ${message.role}`} data-testid={`message-${message.role}`}>
          {message.parts.map((part, index) =>
            part.type === 'text' ? (
              <p key={index} data-testid="text">
                {part.text}
              </p>
            ) : part.type === 'reasoning' ? (
              <p key={index} className="reasoning">
                {part.text}
              </p>
            ) : part.type === 'file' ? (
              <p key={index} className="note">
                <a href={part.url} target="_blank" rel="noreferrer">
                  {part.filename ?? part.mediaType}
                </a>
              </p>
            ) : isToolUIPart(part) ? (
              <ToolCall
                key={index}
                part={part}
                decide={decide}
                busy={busy}
                unsent={unsent.current}
                refused={refusedOf(part, refused)}
                othersWaiting={waitingApprovals(message).length > 0}
              >
                {subAgentCallsByOwner(message)
                  .get(index)
                  ?.map((call) => (
                    <SubAgentCall key={call.approvalId} call={call} decide={decideSubAgentCall} busy={busy} />
                  ))}
              </ToolCall>
            ) : null,
          )}
        </div>
      ))}
      {queuedTexts.map((text, index) => (
        <div key={`queued-${index}`} className="message user queued" data-testid="message-queued">
          <p>{text}</p>
          <p className="note" data-testid="queued-note">
            Queued: this message is sent to the agent once the tool call above is decided and its answer is done.
          </p>
        </div>
      ))}
      {error && (
        <div className="error" data-testid="error" role="alert">
          {errorSentence(error.message)}
        </div>
      )}
      <div className="visually-hidden" aria-live="polite" data-testid="announcer">
        {announcement}
      </div>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (input.trim() === '') return;
          if (blocked) setLocalQueued((all) => [...all, input]);
          else void sendMessage({ text: input });
          setInput('');
        }}
      >
        <label htmlFor="chat-input" className="visually-hidden">
          Message to the agent
        </label>
        <textarea
          id="chat-input"
          data-testid="input"
          rows={2}
          value={input}
          onChange={(event) => setInput(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey) {
              event.preventDefault();
              event.currentTarget.form?.requestSubmit();
            }
          }}
          placeholder={blocked ? 'Your message will be queued until the tool call is decided…' : 'Ask the agent…'}
        />
        <button type="submit" data-testid="send">
          {blocked ? 'Queue' : 'Send'}
        </button>
      </form>
      <div className="status" data-testid="status" role="status">
        {statusSentence(status, waiting.length, queuedTexts.length)}
      </div>
    </main>
  );
}

createRoot(document.getElementById('root') as HTMLElement).render(<App />);
