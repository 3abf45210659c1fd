// The hand-written agent loop: what a team would write on Temporal instead of Tollgate, from Temporal's samples.
// An activity calls the model (the `openai` client, not streamed), the workflow waits for a decision keyed by
// approval id (signal or update, with Tollgate's names), an activity runs the approved tool, and an activity calls
// the model again with its result, until the model answers with text. Bundled on its own. It has what such a loop
// needs and nothing more: no policy, no audit, no search attributes, no signatures, no content store.
import {
  condition,
  defineQuery,
  defineSignal,
  defineUpdate,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import {
  approversSearchAttribute,
  pendingApprovalsSearchAttribute,
  waitingToolsSearchAttribute,
} from '../src/workflows/definitions';
import type { HandLoopActivities, LoopMessage } from './hand-loop-activities';

/** Workflow type of the hand-written loop. */
export const handLoopWorkflowType = 'handWrittenAgentLoop';

/** A decision on one approval. */
export interface HandLoopDecision {
  approvalId: string;
  approved: boolean;
}

/** The decision by signal, with Tollgate's name. */
export const handLoopDecisionSignal = defineSignal<[HandLoopDecision]>('toolApprovalResponse');

/** The decision by update, with Tollgate's name: answers whether it decided an approval the loop waits for. */
export const handLoopDecisionUpdate = defineUpdate<boolean, [HandLoopDecision]>('respondToToolApprovals');

/** The approvals the loop waits for. */
export const handLoopPendingQuery =
  defineQuery<Array<{ approvalId: string; toolName: string }>>('pendingToolApprovals');

/** Model steps a turn may take before it gives up, as a loop from the samples bounds itself. */
const maxSteps = 10;

const { callModel, runTool } = proxyActivities<HandLoopActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

/** The loop's input: the conversation, and whether to list its waiting approvals as Tollgate's turns do. */
export interface HandLoopInput {
  messages: LoopMessage[];
  /**
   * Upsert the search attributes Tollgate's turn keeps (the waiting approval ids, their tools, who may decide) when
   * it waits and clear them once its approval is decided, as a team would that wants its waiting approvals listed in the Temporal UI
   * or found by id (`BENCH_HAND_LOOP_LISTS_WAITING=1`): to price that feature apart from the rest of Tollgate.
   */
  listWaiting?: boolean;
}

/** Runs the conversation until the model answers with text; every tool call waits for its approval. */
export async function handWrittenAgentLoop(input: HandLoopInput): Promise<string> {
  const messages = [...input.messages];
  const waiting = new Map<string, string>();
  const decided = new Map<string, boolean>();
  const decide = ({ approvalId, approved }: HandLoopDecision): boolean => {
    if (!waiting.has(approvalId) || decided.has(approvalId)) return false;
    decided.set(approvalId, approved);
    return true;
  };
  setHandler(handLoopDecisionSignal, (decision) => void decide(decision));
  setHandler(handLoopDecisionUpdate, decide);
  setHandler(handLoopPendingQuery, () =>
    [...waiting]
      .filter(([approvalId]) => !decided.has(approvalId))
      .map(([approvalId, toolName]) => ({ approvalId, toolName })),
  );
  const listed = (approvalId: string | undefined, toolName?: string) =>
    input.listWaiting &&
    upsertSearchAttributes([
      { key: pendingApprovalsSearchAttribute, value: approvalId ? [approvalId] : null },
      { key: waitingToolsSearchAttribute, value: toolName ? [toolName] : null },
      { key: approversSearchAttribute, value: approvalId ? ['*'] : null },
    ]);
  for (let step = 0; step < maxSteps; step++) {
    const reply = await callModel({ messages });
    messages.push(reply);
    if (!reply.tool_calls?.length) {
      listed(undefined);
      return reply.content ?? '';
    }
    for (const call of reply.tool_calls) {
      const approvalId = `${workflowInfo().workflowId}:${call.id}`;
      waiting.set(approvalId, call.function.name);
      listed(approvalId, call.function.name);
      await condition(() => decided.has(approvalId));
      // Decided, so no longer waiting: as Tollgate's turn does, the list of waiting approvals drops it at once.
      listed(undefined);
      const output = decided.get(approvalId)
        ? await runTool({ name: call.function.name, arguments: call.function.arguments })
        : 'The user denied this action.';
      messages.push({ role: 'tool', tool_call_id: call.id, content: output });
    }
  }
  throw new Error(`no answer after ${maxSteps} model steps`);
}
