import { useChat } from '@ai-sdk/react';
import {
  DefaultChatTransport,
  getToolName,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from 'ai';
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';

/** Where the gateway is and the bearer token to call it with; `npm run dev` writes them into the page. */
declare global {
  interface Window {
    tollgateChat: { api: string; token: string; chatId: string };
  }
}

const config = window.tollgateChat;

function ToolCall({
  part,
  decide,
  busy,
}: {
  part: UIMessage['parts'][number];
  decide: (id: string, approved: boolean, reason?: string) => void;
  /**
   * A response is streaming in. After a reload that is the waiting turn's message coming back, which replaces
   * the part: a decision clicked meanwhile would be overwritten, so the buttons wait for the stream to end.
   */
  busy: boolean;
}) {
  const [reason, setReason] = useState('');
  if (!isToolUIPart(part)) return null;
  const approval = 'approval' in part ? part.approval : undefined;
  const decision = (part as { callProviderMetadata?: { tollgate?: { decision?: string } } }).callProviderMetadata
    ?.tollgate?.decision;
  return (
    <div className={`tool tool-${part.state}`} data-testid="tool" data-state={part.state}>
      <div>
        <b>{getToolName(part)}</b> <code>{JSON.stringify(part.input)}</code>
      </div>
      {part.state === 'approval-requested' && approval && (
        <div className="approval">
          <button data-testid="approve" disabled={busy} onClick={() => decide(approval.id, true)}>
            Approve
          </button>
          <input
            placeholder="reason (for a denial)"
            value={reason}
            onChange={(event) => setReason(event.target.value)}
          />
          <button data-testid="deny" disabled={busy} onClick={() => decide(approval.id, false, reason || undefined)}>
            Deny
          </button>
        </div>
      )}
      {part.state === 'approval-responded' && (
        <div className="note">{approval?.approved ? 'Approved; running…' : 'Denied.'}</div>
      )}
      {part.state === 'output-available' && <pre data-testid="output">{JSON.stringify(part.output, null, 2)}</pre>}
      {part.state === 'output-error' && <pre className="error">{part.errorText}</pre>}
      {part.state === 'output-denied' && (
        <div className="note" data-testid="denied">
          {decision === 'expired' ? 'Expired' : 'Denied'}
          {approval?.reason ? `: ${approval.reason}` : ''}
        </div>
      )}
    </div>
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
  if (!response.ok) throw new Error(`The chat's history did not load (${response.status}).`);
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
      <p className="error" data-testid="error">
        {history.error}
      </p>
    );
  }
  return <Chat initialMessages={history.messages} />;
}

function Chat({ initialMessages }: { initialMessages: UIMessage[] }) {
  const [input, setInput] = useState('');
  const { messages, sendMessage, addToolApprovalResponse, status, error } = useChat({
    id: config.chatId,
    // The earlier turns, then the turn in progress again (its message replaces the one the history holds).
    messages: initialMessages,
    resume: true,
    transport: new DefaultChatTransport({
      api: config.api,
      headers: { authorization: `Bearer ${config.token}` },
      // The conversation lives in Tollgate: send only the newest message, not the whole chat.
      prepareSendMessagesRequest: ({ id, messages: all, trigger, messageId }) => ({
        body: { id, messages: all.slice(-1), trigger, messageId },
      }),
    }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const busy = status === 'streaming' || status === 'submitted';
  const decide = (id: string, approved: boolean, reason?: string) =>
    void addToolApprovalResponse({ id, approved, ...(reason !== undefined && { reason }) });
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
            ) : isToolUIPart(part) ? (
              <ToolCall key={index} part={part} decide={decide} busy={busy} />
            ) : null,
          )}
        </div>
      ))}
      {error && (
        <div className="error" data-testid="error">
          {error.message}
        </div>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (input.trim() === '') return;
          void sendMessage({ text: input });
          setInput('');
        }}
      >
        <input
          data-testid="input"
          value={input}
          onChange={(event) => setInput(event.target.value)}
          placeholder="Ask the agent…"
        />
        <button type="submit" data-testid="send" disabled={busy}>
          Send
        </button>
      </form>
      <div className="status" data-testid="status">
        {status}
      </div>
    </main>
  );
}

createRoot(document.getElementById('root') as HTMLElement).render(<App />);
