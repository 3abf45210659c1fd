// docs/chat-front-ends.md's route handler, type-checked here (test/docs/code-samples.test.ts).
import { currentUser } from './session';
// app/api/chat/[[...path]]/route.ts
import { ApprovalDecisions, createChatHandler, DecisionAudit, TollgateClient } from 'tollgate';

export const runtime = 'nodejs';
const tollgate = TollgateClient.connect();
const chat = tollgate.then((client) =>
  createChatHandler({
    tollgate: client,
    decisions: new ApprovalDecisions(client, new DecisionAudit()),
    // Your session → the person the turns and decisions are attributed to.
    authenticate: async () => ({ person: (await currentUser()).id }),
  }),
);
export const POST = async (request: Request) => (await chat).fetch(request);
export const GET = async (request: Request) => (await chat).fetch(request); // /api/chat/:id/stream and /api/chat/:id/messages
