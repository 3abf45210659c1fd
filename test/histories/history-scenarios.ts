import { generateKeyPairSync } from 'node:crypto';
import { GrantLedgerClient, type TollgateClient } from '../../src/client';
import { defineAgentTool, type Tool } from '../../src/tools';
import type { ModelServer } from '../../src/dev/model-server';
import type { ApprovalNotifier, NotificationReceipt } from '../../src/notifications/notification-types';
import type { OperatorPolicy } from '../../src/policy';
import { signDecision } from '../../src/gateway/decisions/sign-decision';
import {
  type ModelMessage,
  type AgentTurnInput,
  type PendingToolApproval,
  type NotificationTarget,
  type ToolApprovalDecision,
  type ToolApprovalRequestPart,
} from '../../src/protocol';
import { pendingToolApprovalsQuery, supersedeTurnSignal, toolApprovalResponseSignal } from '../../src/workflows/definitions';
import { waitFor, waitForPending } from '../support/test-environment';

/** What a scenario drives its workflows with: a worker of its own is running for it. */
export interface CaptureContext {
  tollgate: TollgateClient;
  model: ModelServer;
  notifier: RecordingNotifier;
  /** Saves the history of `workflowId` (its latest run unless `runId` is given) as `<workflowId>.json`. */
  save(workflowId: string, runId?: string): Promise<void>;
}

/** One path a turn can take, and how to drive a turn down it. */
export interface HistoryScenario {
  /** Name on the command line. */
  name: string;
  /** Workflow ids it saves (the file names); it is skipped when all of their files exist. */
  saves: string[];
  /** The worker's operator policy and turn-policy callback for this path. */
  worker?: { policy?: OperatorPolicy; onToolApproval?: 'deny-deploy'; planApproval?: boolean; withAgents?: true };
  run(context: CaptureContext): Promise<void>;
}

/** A Slack-like channel that answers with receipts and keeps what it was asked to show. */
export class RecordingNotifier implements ApprovalNotifier {
  readonly type = 'slack' as const;
  readonly sent: Array<{ kind: string; approvalId: string; channel: string }> = [];

  async requested(notice: { approval: { approvalId: string } }, target: NotificationTarget, kind: string) {
    const channel = target.type === 'slack' ? target.channel : '';
    this.sent.push({ kind, approvalId: notice.approval.approvalId, channel });
    return { type: 'slack' as const, channel, ts: `${this.sent.length}.000` } satisfies NotificationReceipt;
  }

  async resolved(): Promise<void> {}
}

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const keyId = 'capture-gateway';

/** Signs a decision as the gateway does. The key is new each run; the history carries what the turn trusted. */
function signed(
  decision: ToolApprovalDecision,
  binding: { workflowId: string; toolName: string; argumentsDigest: string },
): ToolApprovalDecision {
  return signDecision(decision, binding, { keyId, privateKey });
}

const marker = (name: string) => `[v2-${name}]`;

/** Scripts a model step that asks for `deleteFile` (needs approval) and `lookup` (does not), then answers. */
function scriptDeleteAndLookup(model: ModelServer, name: string): void {
  model.scriptFor(
    marker(name),
    {
      toolCalls: [
        { id: `${name}-delete`, name: 'deleteFile', arguments: { path: `${name}.txt` } },
        { id: `${name}-look`, name: 'lookup', arguments: { query: name } },
      ],
    },
    { text: `${name} finished` },
  );
}

/** Starts turn `v2-<name>` with the scenario's marker and waits for its first pending approval. */
async function waitingTurn(context: CaptureContext, name: string, extra: object = {}) {
  const handle = await context.tollgate.startTurn(
    { messages: [{ role: 'user', content: `${marker(name)} go` }], ...extra },
    { workflowId: `v2-${name}` },
  );
  const [approval] = await waitForPending(handle, 1);
  return { handle, approval: approval! };
}

/** Ends when the conversation has run `turnCount` turns and none runs now; returns its state. */
function conversationSettled(context: CaptureContext, conversationId: string, turnCount: number) {
  return waitFor(
    () => context.tollgate.conversationState(conversationId),
    (state) => state.turnCount === turnCount && state.currentTurnId === undefined,
  );
}

function approvalRequestsIn(messages: ModelMessage[]): ToolApprovalRequestPart[] {
  return messages.flatMap((message) =>
    message.role === 'assistant' && typeof message.content !== 'string'
      ? message.content.filter((part): part is ToolApprovalRequestPart => part.type === 'tool-approval-request')
      : [],
  );
}

/** Turn paths that are plain turns: decided by update, by signal, by expiry or by the worker's policy. */
const plainTurns: HistoryScenario[] = [
  {
    name: 'waiting',
    saves: ['v2-waiting'],
    async run(context) {
      scriptDeleteAndLookup(context.model, 'waiting');
      await waitingTurn(context, 'waiting');
      await context.save('v2-waiting');
    },
  },
  {
    name: 'approved',
    saves: ['v2-approved'],
    async run(context) {
      scriptDeleteAndLookup(context.model, 'approved');
      const { handle, approval } = await waitingTurn(context, 'approved');
      await context.tollgate.decideMany(handle.workflowId, [
        { approvalId: approval.approvalId, approved: true, approver: 'ana' },
      ]);
      await handle.result();
      await context.save(handle.workflowId);
    },
  },
  {
    name: 'denied',
    saves: ['v2-denied'],
    async run(context) {
      scriptDeleteAndLookup(context.model, 'denied');
      const { handle, approval } = await waitingTurn(context, 'denied');
      // By signal, as a bot in another language would send it.
      await handle.signal(toolApprovalResponseSignal, { approvalId: approval.approvalId, approved: false, reason: 'no' });
      await handle.result();
      await context.save(handle.workflowId);
    },
  },
  {
    name: 'expired',
    saves: ['v2-expired'],
    async run(context) {
      scriptDeleteAndLookup(context.model, 'expired');
      const { handle } = await waitingTurn(context, 'expired', { approvalTimeout: '1s' });
      await handle.result();
      await context.save(handle.workflowId);
    },
  },
  {
    name: 'expired-fail',
    saves: ['v2-expired-fail'],
    async run(context) {
      scriptDeleteAndLookup(context.model, 'expired-fail');
      const { handle } = await waitingTurn(context, 'expired-fail', { approvalTimeout: '1s', onExpire: 'fail' });
      const failure = await handle.result().then(
        () => undefined,
        (error: unknown) => error,
      );
      if (!failure) throw new Error("v2-expired-fail: the turn should fail when its approval expires with onExpire 'fail'");
      await context.save(handle.workflowId);
    },
  },
  {
    name: 'policy-denied',
    saves: ['v2-policy-denied'],
    worker: { onToolApproval: 'deny-deploy' },
    async run(context) {
      context.model.scriptFor(
        marker('policy-denied'),
        { toolCalls: [{ id: 'policy-denied-deploy', name: 'deploy', arguments: { service: 'api' } }] },
        { text: 'not deployed' },
      );
      const handle = await context.tollgate.startTurn(
        { messages: [{ role: 'user', content: `${marker('policy-denied')} deploy` }] },
        { workflowId: 'v2-policy-denied' },
      );
      await handle.result();
      await context.save(handle.workflowId);
    },
  },
  {
    name: 'auto-approve',
    saves: ['v2-auto-approve'],
    worker: { policy: { allowAutoApprove: true } },
    async run(context) {
      scriptDeleteAndLookup(context.model, 'auto-approve');
      const handle = await context.tollgate.startTurn(
        { messages: [{ role: 'user', content: `${marker('auto-approve')} go` }], autoApprove: true },
        { workflowId: 'v2-auto-approve' },
      );
      await handle.result();
      await context.save(handle.workflowId);
    },
  },
];

/** Paths through the operator's rules: notices, rights and quorum, signed decisions. */
const ruledTurns: HistoryScenario[] = [
  {
    name: 'notices',
    saves: ['v2-notices'],
    worker: {
      policy: {
        tools: {
          deleteFile: {
            notify: [{ type: 'slack', channel: 'C-ops' }],
            remindAfter: '1s',
            escalateTo: [{ type: 'slack', channel: 'C-managers' }],
          },
        },
      },
    },
    async run(context) {
      scriptDeleteAndLookup(context.model, 'notices');
      const { handle, approval } = await waitingTurn(context, 'notices');
      // The request, then (nobody deciding for a second) the escalation; the outcome resolves both.
      await waitFor(
        async () => context.notifier.sent.filter((entry) => entry.approvalId === approval.approvalId),
        (sent) => sent.length === 2,
      );
      await context.tollgate.decideMany(handle.workflowId, [
        { approvalId: approval.approvalId, approved: true, approver: 'ana' },
      ]);
      await handle.result();
      await context.save(handle.workflowId);
    },
  },
  {
    name: 'quorum',
    saves: ['v2-quorum'],
    worker: { policy: { tools: { deleteFile: { approvers: ['ana', 'bo', 'cy'], quorum: 2 } } } },
    async run(context) {
      scriptDeleteAndLookup(context.model, 'quorum');
      const { handle, approval } = await waitingTurn(context, 'quorum', { requester: 'ana' });
      const { approvalId } = approval;
      // Someone without the right, by signal: ignored and recorded. Then two distinct approvers.
      await handle.signal(toolApprovalResponseSignal, { approvalId, approved: true, approver: 'mallory' });
      await context.tollgate.decideMany(handle.workflowId, [{ approvalId, approved: true, approver: 'bo' }]);
      await context.tollgate.decideMany(handle.workflowId, [{ approvalId, approved: true, approver: 'cy' }]);
      await handle.result();
      await context.save(handle.workflowId);
    },
  },
  {
    name: 'signed',
    saves: ['v2-signed'],
    worker: {
      policy: {
        decisions: { trustedKeys: { [keyId]: publicKey.export({ format: 'jwk' }).x as string } },
        tools: { deleteFile: { approvers: ['ana', 'bo'] } },
      },
    },
    async run(context) {
      scriptDeleteAndLookup(context.model, 'signed');
      const { handle, approval } = await waitingTurn(context, 'signed');
      const { approvalId, inputDigest } = approval;
      // An unsigned signal is ignored on this worker; the signed update counts.
      await handle.signal(toolApprovalResponseSignal, { approvalId, approved: true, approver: 'bo' });
      const decision = { approvalId, approved: true, approver: 'bo' };
      const binding = { workflowId: handle.workflowId, toolName: approval.toolName, argumentsDigest: inputDigest as string };
      await context.tollgate.decideMany(handle.workflowId, [signed(decision, binding)]);
      await handle.result();
      await context.save(handle.workflowId);
    },
  },
];

/** Paths where the caller, the provider or the client take part: halt and resume, MCP, client tools. */
const callerTurns: HistoryScenario[] = [
  {
    name: 'halt-resume',
    saves: ['v2-halted', 'v2-resumed'],
    // A halted turn hands back the requests it announced: the notices are resolved, not left live.
    worker: { policy: { tools: { deleteFile: { notify: [{ type: 'slack', channel: 'C-ops' }] } } } },
    async run(context) {
      const name = 'halt-resume';
      context.model.scriptFor(
        marker(name),
        {
          toolCalls: [
            { id: `${name}-a`, name: 'deleteFile', arguments: { path: 'a' } },
            { id: `${name}-look`, name: 'lookup', arguments: { query: 'q' } },
            { id: `${name}-b`, name: 'deleteFile', arguments: { path: 'b' } },
          ],
        },
        { text: 'a is gone, b stays' },
      );
      const history: ModelMessage[] = [{ role: 'user', content: `${marker(name)} tidy` }];
      const halted = await context.tollgate.startTurn(
        { messages: history, approvalWait: 'halt' },
        { workflowId: 'v2-halted' },
      );
      const first = await halted.result();
      const [a, b] = approvalRequestsIn(first.messages);
      if (first.status !== 'awaiting-approval' || !a || !b) throw new Error('v2-halted: expected two requests back');
      history.push(...first.messages, {
        role: 'tool',
        content: [
          { type: 'tool-approval-response', approvalId: a.approvalId, approved: true },
          { type: 'tool-approval-response', approvalId: b.approvalId, approved: false, reason: 'keep b' },
        ],
      });
      const resumed = await context.tollgate.startTurn(
        { messages: history, approvalWait: 'halt' },
        { workflowId: 'v2-resumed' },
      );
      const second = await resumed.result();
      if (second.status !== 'completed') throw new Error(`v2-resumed: ended ${second.status}, expected completed`);
      await context.save('v2-halted');
      await context.save('v2-resumed');
    },
  },
  {
    name: 'provider',
    saves: ['v2-provider'],
    async run(context) {
      const approvalId = 'mcpr_v2_provider';
      context.model.scriptFor(
        marker('provider'),
        {
          mcpApprovalRequests: [
            { id: approvalId, serverLabel: 'github', name: 'create_issue', arguments: { title: 'Flaky test' } },
          ],
        },
        {
          mcpCalls: [
            { serverLabel: 'github', name: 'create_issue', arguments: { title: 'Flaky test' }, output: 'issue #7' },
          ],
          text: 'Created issue #7.',
        },
      );
      const handle = await context.tollgate.startTurn(
        {
          messages: [{ role: 'user', content: `${marker('provider')} file an issue` }],
          modelApi: 'responses',
          providerTools: [
            {
              type: 'mcp',
              serverLabel: 'github',
              serverUrl: 'https://mcp.example.com/github',
              requireApproval: 'always',
            },
          ],
        },
        { workflowId: 'v2-provider' },
      );
      await waitForPending(handle, 1);
      await context.tollgate.decideMany(handle.workflowId, [{ approvalId, approved: true, approver: 'ana' }]);
      await handle.result();
      await context.save(handle.workflowId);
    },
  },
  {
    name: 'client-output',
    saves: ['v2-client-output'],
    async run(context) {
      const toolCallId = 'client-output-pick';
      context.model.scriptFor(
        marker('client-output'),
        { toolCalls: [{ id: toolCallId, name: 'pickColor', arguments: { prompt: 'favourite?' } }] },
        { text: 'teal it is' },
      );
      const handle = await context.tollgate.startTurn(
        { messages: [{ role: 'user', content: `${marker('client-output')} pick` }] },
        { workflowId: 'v2-client-output' },
      );
      await waitFor(
        () => context.tollgate.state(handle.workflowId),
        (state) => state.status === 'awaiting-tool-output',
      );
      // An output the tool's schema refuses is rejected (and recorded); the valid one is taken.
      await context.tollgate
        .submitToolOutput(handle.workflowId, { toolCallId, output: { color: 'teal' } })
        .then(() => Promise.reject(new Error('v2-client-output: an invalid output was accepted')), () => undefined);
      await context.tollgate.submitToolOutput(handle.workflowId, { toolCallId, output: { color: '#008080' } });
      await handle.result();
      await context.save(handle.workflowId);
    },
  },
];

/** Conversation paths: a new message supersedes a waiting turn; a conversation continued as new. */
const conversations: HistoryScenario[] = [
  {
    name: 'supersede',
    saves: ['v2-supersede', 'v2-supersede/turn-1'],
    // A tool with an approver list: superseding must not need an approver's rights.
    worker: { policy: { tools: { deploy: { approvers: ['ana'] } } } },
    async run(context) {
      const conversationId = 'v2-supersede';
      context.model.scriptFor(
        marker('supersede'),
        { toolCalls: [{ id: 'supersede-deploy', name: 'deploy', arguments: { service: 'api' } }] },
        { text: 'here is the status instead' },
      );
      await context.tollgate.sendMessage(
        conversationId,
        { content: `${marker('supersede')} deploy api` },
        { onMessageWhilePending: 'supersede' },
      );
      await waitFor(
        () => context.tollgate.conversationState(conversationId),
        (state) => state.pending.length === 1,
      );
      await context.tollgate.sendMessage(conversationId, { content: 'actually, just show me the status' });
      await conversationSettled(context, conversationId, 2);
      await context.save(conversationId);
      await context.save(`${conversationId}/turn-1`);
    },
  },
  {
    name: 'continued',
    saves: ['v2-continued', 'v2-continued/turn-2'],
    async run(context) {
      const conversationId = 'v2-continued';
      context.model.scriptFor(
        marker('continued'),
        { text: 'first answer' },
        { toolCalls: [{ id: 'continued-delete', name: 'deleteFile', arguments: { path: 'x' } }] },
      );
      await context.tollgate.sendMessage(
        conversationId,
        { content: `${marker('continued')} one` },
        { continueAsNewAfterTurns: 1 },
      );
      // The second message goes to the run that continued as new; its turn waits for a decision.
      const handle = context.tollgate.client.workflow.getHandle(conversationId);
      await waitFor(
        async () => (await handle.fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes,
        (started) => Boolean(started?.continuedExecutionRunId),
      );
      await context.tollgate.sendMessage(conversationId, { content: 'two' });
      await waitFor(
        () => context.tollgate.conversationState(conversationId),
        (state) => state.pending.length === 1,
      );
      await context.save(conversationId);
      await context.save(`${conversationId}/turn-2`);
    },
  },
];

/**
 * Executions that recorded no `turn-v2` or `conversation-v2` marker, as every execution today's code starts; the
 * `v2-*` scenarios above were captured by a pre-release worker that recorded it (capture one again and it will
 * not). The revision scenarios hold what each turn revision changed (src/protocol/turn-plan.ts).
 */
const withoutMarker: HistoryScenario[] = [
  {
    name: 'retired-approved',
    saves: ['retired-approved'],
    async run(context) {
      scriptDeleteAndLookup(context.model, 'retired-approved');
      const handle = await context.tollgate.startTurn(
        { messages: [{ role: 'user', content: `${marker('retired-approved')} go` }] },
        { workflowId: 'retired-approved' },
      );
      const [approval] = await waitForPending(handle, 1);
      await context.tollgate.decideMany(handle.workflowId, [
        { approvalId: approval!.approvalId, approved: true, approver: 'ana' },
      ]);
      await handle.result();
      await context.save(handle.workflowId);
    },
  },
  {
    name: 'retired-local-steps',
    saves: ['retired-local-steps'],
    async run(context) {
      scriptDeleteAndLookup(context.model, 'retired-local-steps');
      const handle = await context.tollgate.startTurn(
        { messages: [{ role: 'user', content: `${marker('retired-local-steps')} go` }], modelSteps: 'local' },
        { workflowId: 'retired-local-steps' },
      );
      const [approval] = await waitForPending(handle, 1);
      await context.tollgate.decide(approval!.approvalId, { approved: true, approver: 'ana' });
      await handle.result();
      await context.save(handle.workflowId);
    },
  },
  {
    // Revision 2 of the turn code: each decision leaves the pending list in the workflow task that takes it.
    name: 'retired-revision-2',
    saves: ['retired-revision-2'],
    async run(context) {
      const name = 'retired-revision-2';
      context.model.scriptFor(
        marker(name),
        {
          toolCalls: [
            { id: `${name}-a`, name: 'deleteFile', arguments: { path: 'a.txt' } },
            { id: `${name}-b`, name: 'deleteFile', arguments: { path: 'b.txt' } },
          ],
        },
        { text: `${name} finished` },
      );
      const handle = await context.tollgate.startTurn(
        { messages: [{ role: 'user', content: `${marker(name)} go` }] },
        { workflowId: name },
      );
      const [first, second] = await waitForPending(handle, 2);
      await context.tollgate.decide(first!.approvalId, { approved: true, approver: 'ana' });
      await context.tollgate.decide(second!.approvalId, { approved: false, approver: 'ana', reason: 'keep b' });
      await handle.result();
      await context.save(handle.workflowId);
    },
  },
  {
    // Revision 3: the last tool of a step runs in one activity with the next model step; a model that fails there
    // is called again in an activity of its own.
    name: 'retired-revision-3',
    saves: ['retired-revision-3'],
    async run(context) {
      const name = 'retired-revision-3';
      context.model.scriptFor(
        marker(name),
        {
          toolCalls: [
            { id: `${name}-a`, name: 'deleteFile', arguments: { path: 'a.txt' } },
            { id: `${name}-b`, name: 'deleteFile', arguments: { path: 'b.txt' } },
          ],
        },
        { toolCalls: [{ id: `${name}-look`, name: 'lookup', arguments: { query: name } }] },
        { error: { status: 503, message: 'overloaded' } },
        { text: `${name} finished` },
      );
      const handle = await context.tollgate.startTurn(
        { messages: [{ role: 'user', content: `${marker(name)} go` }] },
        { workflowId: name },
      );
      const [first, second] = await waitForPending(handle, 2);
      await context.tollgate.decide(first!.approvalId, { approved: true, approver: 'ana' });
      await waitFor(
        async () => (await handle.fetchHistory()).events?.filter((event) => event.activityTaskCompletedEventAttributes),
        (completed) => (completed?.length ?? 0) >= 2,
      );
      await context.tollgate.decide(second!.approvalId, { approved: true, approver: 'ana' });
      await handle.result();
      await context.save(handle.workflowId);
    },
  },
  {
    // Revision 4: a decision reaches the Temporal UI's details and the conversation at once, and the search attribute
    // at the turn's next workflow task.
    name: 'retired-revision-4',
    saves: ['retired-revision-4', 'retired-revision-4/turn-1'],
    async run(context) {
      const conversationId = 'retired-revision-4';
      context.model.scriptFor(
        marker(conversationId),
        { toolCalls: [{ id: `${conversationId}-a`, name: 'deleteFile', arguments: { path: 'a.txt' } }] },
        { text: `${conversationId} finished` },
      );
      const { turnId } = await context.tollgate.sendMessage(conversationId, {
        content: `${marker(conversationId)} go`,
      });
      const waiting = await waitFor(
        () => context.tollgate.conversationState(conversationId),
        (state) => state.pending.length === 1,
      );
      await context.tollgate.decide(waiting.pending[0]!.approvalId, { approved: true, approver: 'ana' });
      await context.tollgate.turn(turnId).result();
      await waitFor(
        () => context.tollgate.conversationState(conversationId),
        (state) => state.currentTurnId === undefined,
      );
      await context.save(conversationId);
      await context.save(`${conversationId}/turn-1`);
    },
  },
  {
    // Revision 5: a signed decision counts only when bound to this turn, approval, tool, arguments and a time; another
    // turn's decision sent by signal is ignored.
    name: 'retired-revision-5',
    saves: ['retired-revision-5'],
    worker: {
      policy: {
        decisions: { trustedKeys: { [keyId]: publicKey.export({ format: 'jwk' }).x as string } },
        tools: { deleteFile: { approvers: ['ana', 'bo'] } },
      },
    },
    async run(context) {
      const name = 'retired-revision-5';
      scriptDeleteAndLookup(context.model, name);
      const handle = await context.tollgate.startTurn(
        { messages: [{ role: 'user', content: `${marker(name)} go` }] },
        { workflowId: name },
      );
      const [approval] = (await waitForPending(handle, 1)) as [PendingToolApproval];
      const binding = { toolName: approval.toolName, argumentsDigest: approval.inputDigest as string };
      const elsewhere = signed(
        { approvalId: approval.approvalId, approved: true, approver: 'bo' },
        { ...binding, workflowId: 'another-turn' },
      );
      await handle.signal(toolApprovalResponseSignal, elsewhere);
      await waitFor(
        () => context.tollgate.state(handle.workflowId),
        (state) => state.ignoredDecisions.length === 1,
      );
      const decision = { approvalId: approval.approvalId, approved: true, approver: 'bo' };
      await context.tollgate.decideMany(handle.workflowId, [signed(decision, { ...binding, workflowId: name })]);
      await handle.result();
      await context.save(handle.workflowId);
    },
  },
  {
    // Revision 6, before editing arguments (revision 7): a decision carrying `input` is read as an unknown field,
    // so a signal with one is ignored and the call runs with the model's input after a plain approval.
    name: 'retired-revision-6',
    saves: ['retired-revision-6'],
    async run(context) {
      const name = 'retired-revision-6';
      scriptDeleteAndLookup(context.model, name);
      const handle = await context.tollgate.startTurn(
        { messages: [{ role: 'user', content: `${marker(name)} go` }] },
        { workflowId: name },
      );
      const [approval] = (await waitForPending(handle, 1)) as [PendingToolApproval];
      await handle.signal(toolApprovalResponseSignal, {
        approvalId: approval.approvalId,
        approved: true,
        approver: 'ana',
        input: { path: 'edited.txt' },
      } as never);
      await waitFor(
        () => context.tollgate.state(handle.workflowId),
        (state) => state.ignoredDecisions.length === 1,
      );
      await context.tollgate.decideMany(handle.workflowId, [
        { approvalId: approval.approvalId, approved: true, approver: 'ana' },
      ]);
      await handle.result();
      await context.save(handle.workflowId);
    },
  },
  {
    // Revisions 7–9 at once: an approver edits the arguments (7), the approval's expiry warning timer starts and is
    // cancelled by the decision (8), and the search attributes name the waiting tool, its approvers and the
    // requester (9).
    name: 'revision-9',
    saves: ['revision-9'],
    worker: {
      policy: {
        tools: {
          deleteFile: {
            editors: ['ana'],
            approvalTimeout: '1h',
            notify: [{ type: 'slack', channel: 'C-ops' }],
          },
        },
      },
    },
    async run(context) {
      const name = 'revision-9';
      scriptDeleteAndLookup(context.model, name);
      const handle = await context.tollgate.startTurn(
        { messages: [{ role: 'user', content: `${marker(name)} go` }], requester: 'carol' },
        { workflowId: name },
      );
      const [approval] = (await waitForPending(handle, 1)) as [PendingToolApproval];
      await waitFor(
        async () => context.notifier.sent.filter((entry) => entry.approvalId === approval.approvalId),
        (sent) => sent.length === 1,
      );
      await context.tollgate.decideMany(handle.workflowId, [
        { approvalId: approval.approvalId, approved: true, approver: 'ana', input: { path: 'kept.txt' } },
      ]);
      await handle.result();
      await context.save(handle.workflowId);
    },
  },
  {
    // Revision 10: a standing grant covers the call that asks; the turn records the approval at once and runs it.
    // The grant ledger's own history (a grant checked by its activity, then a claim) is saved beside it.
    name: 'revision-10',
    saves: ['revision-10', 'tollgate-grants/capture-revision-10'],
    async run(context) {
      const name = 'revision-10';
      const ledger = new GrantLedgerClient(context.tollgate.client, context.tollgate.taskQueue);
      await ledger.grant(
        { person: 'ana' },
        { tools: ['deleteFile'], scope: { type: 'requester', requester: 'carol' }, uses: 1 },
        { grantId: 'grant-0000000000000010' },
      );
      scriptDeleteAndLookup(context.model, name);
      const handle = await context.tollgate.startTurn(
        { messages: [{ role: 'user', content: `${marker(name)} go` }], requester: 'carol' },
        { workflowId: name },
      );
      await handle.result();
      await context.save(handle.workflowId);
      await context.save(ledger.workflowId);
    },
  },
  {
    // Revision 12: the model proposes a plan of two deletes, a person approves it (the plan's result comes from
    // workflow code, no tool runs), both planned calls are approved by it at once and run, and a repeat of one asks.
    name: 'revision-12',
    saves: ['revision-12'],
    worker: { planApproval: true },
    async run(context) {
      const name = 'revision-12';
      const deleteCall = (id: string, path: string) => ({ id: `${name}-${id}`, name: 'deleteFile', arguments: { path } });
      context.model.scriptFor(
        marker(name),
        {
          toolCalls: [
            {
              id: `${name}-plan`,
              name: 'proposePlan',
              arguments: {
                calls: [
                  { toolName: 'deleteFile', input: { path: 'a.txt' } },
                  { toolName: 'deleteFile', input: { path: 'b.txt' } },
                ],
              },
            },
          ],
        },
        { toolCalls: [deleteCall('a', 'a.txt'), deleteCall('b', 'b.txt')] },
        { toolCalls: [deleteCall('again', 'a.txt')] },
        { text: `${name} finished` },
      );
      const handle = await context.tollgate.startTurn(
        { messages: [{ role: 'user', content: `${marker(name)} go` }], requester: 'carol' },
        { workflowId: name },
      );
      const [plan] = (await waitForPending(handle, 1)) as [PendingToolApproval];
      await context.tollgate.decideMany(handle.workflowId, [
        { approvalId: plan.approvalId, approved: true, approver: 'ana' },
      ]);
      const repeat = await waitFor(
        () => handle.query(pendingToolApprovalsQuery),
        (pending) => pending.some((approval) => approval.toolCallId === `${name}-again`),
      );
      await context.tollgate.decideMany(handle.workflowId, [
        { approvalId: (repeat[0] as PendingToolApproval).approvalId, approved: true, approver: 'ana' },
      ]);
      await handle.result();
      await context.save(handle.workflowId);
    },
  },
  {
    name: 'retired-conversation',
    saves: ['retired-conversation', 'retired-conversation/turn-1'],
    async run(context) {
      const conversationId = 'retired-conversation';
      scriptDeleteAndLookup(context.model, 'retired-conversation');
      await context.tollgate.sendMessage(conversationId, { content: `${marker('retired-conversation')} go` });
      await waitFor(
        () => context.tollgate.conversationState(conversationId),
        (state) => state.pending.length === 1,
      );
      await context.save(conversationId);
      await context.save(`${conversationId}/turn-1`);
    },
  },
];

/** The agent tool the sub-agent scenarios' workers also have: a reader that may look things up and delete files. */
export function captureReader(tools: readonly Tool[]): Tool {
  return defineAgentTool({
    name: 'reader',
    description: 'Reads and tidies.',
    instructions: 'You read and tidy files.',
    tools: tools.filter((tool) => tool.name === 'lookup' || tool.name === 'deleteFile'),
    maxSteps: 3,
  });
}

/** Starts turn `<name>` whose model hands a task to the reader, whose own call of `deleteFile` waits. */
async function parentOfWaitingReader(
  context: CaptureContext,
  name: string,
  approvalRules?: AgentTurnInput['approvalRules'],
) {
  context.model.scriptFor(
    marker(name),
    { toolCalls: [{ id: `${name}-reader`, name: 'reader', arguments: { task: `${marker(`${name}-child`)} tidy` } }] },
    { text: `${name} finished` },
  );
  context.model.scriptFor(
    marker(`${name}-child`),
    { toolCalls: [{ id: `${name}-delete`, name: 'deleteFile', arguments: { path: `${name}.txt` } }] },
    { text: `${name} tidied` },
  );
  const handle = await context.tollgate.startTurn(
    {
      messages: [{ role: 'user', content: `${marker(name)} go` }],
      tools: ['reader'],
      requester: 'carol',
      ...(approvalRules && { approvalRules }),
    },
    { workflowId: name },
  );
  const child = context.tollgate.turn(`${name}/reader-1`);
  const [approval] = (await waitFor(
    () => waitForPending(child, 1).catch(() => []),
    (list) => list.length === 1,
  )) as [PendingToolApproval];
  return { handle, approval };
}

/** A parent turn waiting while its sub-agent waits: before revision 14 and since. */
const subAgents: HistoryScenario[] = [
  {
    // Revision 11: the sub-agent waits alone; its signals to its parent stay unread there. Captured before 14.
    name: 'revision-11',
    saves: ['revision-11', 'revision-11/reader-1'],
    worker: { withAgents: true },
    async run(context) {
      const { handle, approval } = await parentOfWaitingReader(context, 'revision-11');
      await context.tollgate.decide(approval.approvalId, { approved: true, approver: 'ana' });
      await handle.result();
      await context.save(handle.workflowId);
      await context.save(`${handle.workflowId}/reader-1`);
    },
  },
  {
    // Revision 14: the parent shows the sub-agent's call (search attributes included) and passes on the decision
    // signalled to it.
    name: 'revision-14',
    saves: ['revision-14', 'revision-14/reader-1'],
    worker: { withAgents: true },
    async run(context) {
      const { handle, approval } = await parentOfWaitingReader(context, 'revision-14');
      await waitForPending(handle, 1);
      await handle.signal(toolApprovalResponseSignal, { approvalId: approval.approvalId, approved: true, approver: 'ana' });
      await handle.result();
      await context.save(handle.workflowId);
      await context.save(`${handle.workflowId}/reader-1`);
    },
  },
  {
    // Revision 14: the parent superseded while its sub-agent waits supersedes it; the sub-agent denies and ends.
    name: 'revision-14-superseded',
    saves: ['revision-14-superseded', 'revision-14-superseded/reader-1'],
    worker: { withAgents: true },
    async run(context) {
      const { handle } = await parentOfWaitingReader(context, 'revision-14-superseded');
      await waitForPending(handle, 1);
      await handle.signal(supersedeTurnSignal, { reason: 'a newer message' });
      await handle.result();
      await context.save(handle.workflowId);
      await context.save(`${handle.workflowId}/reader-1`);
    },
  },
  {
    // Revision 16: the sub-agent's call the requester may not approve says so, and the parent's approvers leave her out.
    name: 'revision-16',
    saves: ['revision-16', 'revision-16/reader-1'],
    worker: { withAgents: true },
    async run(context) {
      const { handle, approval } = await parentOfWaitingReader(context, 'revision-16', {
        approvers: ['carol', 'ana'],
        allowSelfApproval: false,
      });
      await waitForPending(handle, 1);
      await handle.signal(toolApprovalResponseSignal, { approvalId: approval.approvalId, approved: true, approver: 'ana' });
      await handle.result();
      await context.save(handle.workflowId);
      await context.save(`${handle.workflowId}/reader-1`);
    },
  },
  {
    // Revision 17: an update sent to the parent for its sub-agent's call is passed on and answered with the sub-agent's
    // verdict: first a refusal (the requester may not approve her own call), then the approval.
    name: 'revision-17',
    saves: ['revision-17', 'revision-17/reader-1'],
    worker: { withAgents: true },
    async run(context) {
      const { handle, approval } = await parentOfWaitingReader(context, 'revision-17', { allowSelfApproval: false });
      await waitForPending(handle, 1);
      const decide = (approver: string) =>
        context.tollgate.decideMany(handle.workflowId, [{ approvalId: approval.approvalId, approved: true, approver }]);
      await decide('carol').then(
        () => Promise.reject(new Error('the self-approval was taken')),
        () => undefined,
      );
      await decide('ana');
      await handle.result();
      await context.save(handle.workflowId);
      await context.save(`${handle.workflowId}/reader-1`);
    },
  },
  {
    // Revision 17: the parent cancelled while its sub-agent waits lets it end cancelled, denying its call.
    name: 'revision-17-cancelled',
    saves: ['revision-17-cancelled', 'revision-17-cancelled/reader-1'],
    worker: { withAgents: true },
    async run(context) {
      const { handle } = await parentOfWaitingReader(context, 'revision-17-cancelled');
      await waitForPending(handle, 1);
      await handle.cancel();
      await handle.result().catch(() => undefined);
      await context.save(handle.workflowId);
      await context.save(`${handle.workflowId}/reader-1`);
    },
  },
  {
    // Revision 17: the parent fails (its own launch expired with onExpire 'fail') while its sub-agent waits: it
    // supersedes the sub-agent with why and lets it end, denying its call.
    name: 'revision-17-failed',
    saves: ['revision-17-failed', 'revision-17-failed/reader-1'],
    worker: { withAgents: true, policy: { tools: { launch: { onExpire: 'fail' } } } },
    async run(context) {
      const name = 'revision-17-failed';
      context.model.scriptFor(marker(name), {
        toolCalls: [
          { id: `${name}-launch`, name: 'launch', arguments: { job: name } },
          { id: `${name}-reader`, name: 'reader', arguments: { task: `${marker(`${name}-child`)} tidy` } },
        ],
      });
      context.model.scriptFor(marker(`${name}-child`), {
        toolCalls: [{ id: `${name}-delete`, name: 'deleteFile', arguments: { path: `${name}.txt` } }],
      });
      const handle = await context.tollgate.startTurn(
        { messages: [{ role: 'user', content: `${marker(name)} go` }], tools: ['reader', 'launch'], requester: 'carol' },
        { workflowId: name },
      );
      await handle.result().catch(() => undefined);
      await context.save(handle.workflowId);
      await context.save(`${handle.workflowId}/reader-1`);
    },
  },
];

/**
 * An operator policy under which `deleteFile` announces its request, escalates after a second, and warns before it
 * expires in an hour: a decision then meets a fired reminder and two timers still waiting.
 */
const remindedDeleteFile = {
  tools: {
    deleteFile: {
      approvalTimeout: '1h',
      notify: [{ type: 'slack' as const, channel: 'C-ops' }],
      remindAfter: '1s',
      escalateTo: [{ type: 'slack' as const, channel: 'C-managers' }],
    },
  },
};

/** Paths of the decision's flatter promise chain (revision 15): the tool is scheduled in another order. */
const flatDecisions: HistoryScenario[] = [
  {
    // Revision 15: one call that asks, with a reminder that has fired, a reminder and an expiry warning still waiting;
    // the decision cancels both timers, resolves the notices and runs the tool with the next model step.
    name: 'revision-15',
    saves: ['revision-15'],
    worker: { policy: remindedDeleteFile },
    async run(context) {
      const name = 'revision-15';
      context.model.scriptFor(
        marker(name),
        { toolCalls: [{ id: `${name}-delete`, name: 'deleteFile', arguments: { path: `${name}.txt` } }] },
        { text: `${name} finished` },
      );
      const handle = await context.tollgate.startTurn(
        { messages: [{ role: 'user', content: `${marker(name)} go` }], requester: 'carol' },
        { workflowId: name },
      );
      const [approval] = (await waitForPending(handle, 1)) as [PendingToolApproval];
      // The request, then (nobody deciding for a second) the escalation; the decision resolves both.
      await waitFor(
        async () => context.notifier.sent.filter((entry) => entry.approvalId === approval.approvalId),
        (sent) => sent.length === 2,
      );
      await context.tollgate.decideMany(handle.workflowId, [
        { approvalId: approval.approvalId, approved: true, approver: 'ana' },
      ]);
      await handle.result();
      await context.save(handle.workflowId);
    },
  },
];

/**
 * Two calls that ask in one step, each with a reminder that has fired and a reminder and an expiry warning still
 * waiting; both are decided in one update: the timers are cancelled, the notices resolved, the first tool runs on its
 * own and the second with the next model step. Revision 18 recorded it; revision 19 runs the same path on its own code.
 */
function twoRemindedCallsDecidedTogether(name: string): HistoryScenario {
  return {
    name,
    saves: [name],
    worker: { policy: remindedDeleteFile },
    async run(context) {
      context.model.scriptFor(
        marker(name),
        {
          toolCalls: [
            { id: `${name}-delete-a`, name: 'deleteFile', arguments: { path: `${name}-a.txt` } },
            { id: `${name}-delete-b`, name: 'deleteFile', arguments: { path: `${name}-b.txt` } },
          ],
        },
        { text: `${name} finished` },
      );
      const handle = await context.tollgate.startTurn(
        { messages: [{ role: 'user', content: `${marker(name)} go` }], requester: 'carol' },
        { workflowId: name },
      );
      const approvals = (await waitForPending(handle, 2)) as PendingToolApproval[];
      const ids = new Set(approvals.map((approval) => approval.approvalId));
      // Each request, then (nobody deciding for a second) its escalation; the decisions resolve all four.
      await waitFor(
        async () => context.notifier.sent.filter((entry) => ids.has(entry.approvalId)),
        (sent) => sent.length === 4,
      );
      await context.tollgate.decideMany(
        handle.workflowId,
        approvals.map((approval) => ({ approvalId: approval.approvalId, approved: true, approver: 'ana' })),
      );
      await handle.result();
      await context.save(handle.workflowId);
    },
  };
}

/** Revision 18: a step's calls settled side by side and waited for through one condition. */
const oneWaitPerStep: HistoryScenario[] = [twoRemindedCallsDecidedTogether('revision-18')];

/** Revision 19: a step's calls followed as state, waiting for people without promises of their own. */
const callsWaitWithoutPromises: HistoryScenario[] = [
  twoRemindedCallsDecidedTogether('revision-19'),
  {
    // A call that asks and expires (its timer, the one promise a waiting call keeps) while a call that needs no
    // approval runs its tool beside it; the model then reads the denial and the tool's output.
    name: 'revision-19-expired',
    saves: ['revision-19-expired'],
    async run(context) {
      const name = 'revision-19-expired';
      context.model.scriptFor(
        marker(name),
        {
          toolCalls: [
            { id: `${name}-delete`, name: 'deleteFile', arguments: { path: `${name}.txt` } },
            { id: `${name}-look`, name: 'lookup', arguments: { query: name } },
          ],
        },
        { text: `${name} finished` },
      );
      const handle = await context.tollgate.startTurn(
        { messages: [{ role: 'user', content: `${marker(name)} go` }], approvalTimeout: '1s' },
        { workflowId: name },
      );
      const result = await handle.result();
      if (result.audit[0]?.decision !== 'expired') throw new Error(`${name}: the approval should have expired`);
      await context.save(handle.workflowId);
    },
  },
];

/** Every path, in capture order. */
export const historyScenarios: HistoryScenario[] = [
  ...plainTurns,
  ...ruledTurns,
  ...callerTurns,
  ...conversations,
  ...withoutMarker,
  ...subAgents,
  ...flatDecisions,
  ...oneWaitPerStep,
  ...callsWaitWithoutPromises,
];
