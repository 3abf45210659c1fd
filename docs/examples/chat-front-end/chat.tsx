'use client';
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';

// docs/chat-front-ends.md's chat component, type-checked here (test/docs/code-samples.test.ts).
export function Chat(props: { chatId: string; initialMessages: UIMessage[]; userToken: string }) {
  const { chatId, initialMessages, userToken } = props;
  const { messages, sendMessage, addToolApprovalResponse } = useChat({
    id: chatId, // one conversation per id; keep it in the URL so a reload comes back to it
    messages: initialMessages, // the earlier turns (useChat reads them once, so load them before it mounts)
    resume: true, // then what the running turn is doing (and what waits for approval), replacing its message
    transport: new DefaultChatTransport({
      api: `${process.env.NEXT_PUBLIC_TOLLGATE_URL}/api/chat`,
      headers: () => ({ authorization: `Bearer ${userToken}` }),
      // Tollgate keeps the history: send only the message the request is about (for a decision, the assistant
      // message that asked, which need not be the last one: a queued message may follow it).
      prepareSendMessagesRequest: ({ id, messages, trigger, messageId }) => {
        const about = messages.find((m) => m.id === messageId && m.role === 'assistant') ?? messages.at(-1);
        return { body: { id, messages: about ? [about] : [], trigger, messageId } };
      },
    }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  // A tool part in state 'approval-requested' has part.approval.id:
  // addToolApprovalResponse({ id: part.approval.id, approved: false, reason: 'not on Fridays' })
  return (
    <div>
      {messages.map((message) => (
        <p key={message.id}>{message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('')}</p>
      ))}
      <button onClick={() => void sendMessage({ text: 'hello' })}>Send</button>
      <button
        onClick={() => {
          const waiting = messages
            .flatMap((message) => message.parts)
            .find((part) => 'approval' in part && part.state === 'approval-requested');
          if (waiting && 'approval' in waiting && waiting.approval) {
            void addToolApprovalResponse({ id: waiting.approval.id, approved: true });
          }
        }}
      >
        Approve
      </button>
    </div>
  );
}
