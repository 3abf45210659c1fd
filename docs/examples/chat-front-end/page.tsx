// docs/chat-front-ends.md's Next.js page, type-checked here (test/docs/code-samples.test.ts).
import type { UIMessage } from 'ai';
import { Chat } from './chat';
import { userToken } from './session';

// app/chat/[id]/page.tsx: a server component loads the history, so a reload shows the earlier exchanges
export default async function ChatPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const response = await fetch(`${process.env.TOLLGATE_URL}/api/chat/${encodeURIComponent(id)}/messages`, {
    headers: { authorization: `Bearer ${await userToken()}` },
  });
  const initialMessages = response.status === 404 ? [] : ((await response.json()) as UIMessage[]); // 404: a new chat
  return <Chat chatId={id} initialMessages={initialMessages} userToken={await userToken()} />;
}
