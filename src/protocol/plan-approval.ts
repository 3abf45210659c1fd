// Without zod on purpose: workflow code matches calls against an approved plan with these rules.
import { approverRefusal } from './approver-rights';
import type { ApprovalRights, PlanEntry } from './turn-plan';

export type { PlanEntry };

/**
 * Plan approval: the model proposes the calls it intends to make (the built-in `proposePlan` tool), a person approves
 * them as one, and each planned call then runs once in that turn without asking. These are the pure rules: reading a
 * plan within bounds, who may approve it (the strictest rights of its calls), and whether an approved plan's entry
 * covers a later call.
 */

/** The built-in tool's name, as the model sees it. */
export const proposePlanToolName = 'proposePlan';

/** How large a plan may be: calls, each call's input (canonical JSON characters), all inputs together, nesting. */
export const planLimits = { calls: 20, inputCharacters: 8000, totalCharacters: 32_000, depth: 8 } as const;

/** One call a plan proposes, as the model wrote it. */
export interface ProposedCall {
  toolName: string;
  input: unknown;
}

/** What the model is told about `proposePlan`. */
export const proposePlanDescription =
  'Proposes the tool calls you intend to make, with their exact arguments, for one approval. Once a person approves ' +
  'the plan, each listed call runs once in this turn without asking again; a call that differs in tool or arguments, ' +
  'or repeats one already made, asks as usual. Propose a plan before a series of calls that need approval.';

/** The JSON Schema of `proposePlan`'s input, as the model sees it. */
export const proposePlanParameters: Record<string, unknown> = {
  type: 'object',
  properties: {
    calls: {
      type: 'array',
      description: 'The calls, in the order you intend to make them.',
      minItems: 1,
      maxItems: planLimits.calls,
      items: {
        type: 'object',
        properties: {
          toolName: { type: 'string', description: 'One of the tools you have.' },
          input: { type: 'object', description: "The call's exact arguments.", additionalProperties: true },
        },
        required: ['toolName', 'input'],
        additionalProperties: false,
      },
    },
  },
  required: ['calls'],
  additionalProperties: false,
};

/**
 * The calls of a `proposePlan` input, or why it is not a plan: an object `{ calls }` of 1 to {@link planLimits}.calls
 * entries `{ toolName, input }`, each input within the size and nesting bounds. Reads in bounded work whatever the
 * model sent.
 */
export function readPlan(input: unknown): { calls: ProposedCall[] } | { problem: string } {
  if (!isRecord(input)) return { problem: 'A plan is an object { calls: [{ toolName, input }, …] }.' };
  const extra = Object.keys(input).filter((key) => key !== 'calls');
  if (extra.length > 0) return { problem: `A plan has only "calls"; it also had ${quoted(extra)}.` };
  const { calls } = input;
  if (!Array.isArray(calls) || calls.length === 0) return { problem: 'A plan lists at least one call in "calls".' };
  if (calls.length > planLimits.calls) {
    return { problem: `A plan lists at most ${planLimits.calls} calls; this one lists ${calls.length}.` };
  }
  const read: ProposedCall[] = [];
  let total = 0;
  for (const [index, entry] of calls.entries()) {
    const where = `Call ${index + 1} of the plan`;
    if (!isRecord(entry)) return { problem: `${where} is not an object { toolName, input }.` };
    const extraKeys = Object.keys(entry).filter((key) => key !== 'toolName' && key !== 'input');
    if (extraKeys.length > 0)
      return { problem: `${where} has only "toolName" and "input"; it also had ${quoted(extraKeys)}.` };
    const { toolName } = entry;
    if (typeof toolName !== 'string' || toolName.length === 0 || toolName.length > 200) {
      return { problem: `${where} names no tool ("toolName").` };
    }
    if (!Object.hasOwn(entry, 'input')) return { problem: `${where} (${toolName}) has no "input".` };
    if (depthOf(entry.input) > planLimits.depth) {
      return { problem: `${where} (${toolName}) nests its input deeper than ${planLimits.depth} levels.` };
    }
    const size = (JSON.stringify(entry.input) ?? '').length;
    if (size > planLimits.inputCharacters) {
      return {
        problem: `${where} (${toolName}) has an input of ${size} characters; at most ${planLimits.inputCharacters}.`,
      };
    }
    total += size;
    if (total > planLimits.totalCharacters) {
      return {
        problem: `The plan's inputs come to more than ${planLimits.totalCharacters} characters; propose fewer calls.`,
      };
    }
    read.push({ toolName, input: entry.input });
  }
  return { calls: read };
}

/**
 * Who may approve a plan: the strictest of its calls' rights, so that whoever approves it could have decided every
 * call in it. Approver lists intersect (a call without one restricts nobody), the largest quorum holds, the requester
 * may approve only where every call allows it, and nobody may edit a plan. Undefined rights when no call has any; a
 * problem when no one could approve every call.
 */
export function strictestRights(
  calls: ReadonlyArray<{ toolName: string; rights?: ApprovalRights }>,
  requester?: string,
): { rights?: ApprovalRights } | { problem: string } {
  const ruled = calls.filter((call): call is { toolName: string; rights: ApprovalRights } => call.rights !== undefined);
  if (ruled.length === 0) return {};
  let approvers: string[] | undefined;
  for (const call of ruled) {
    const list = call.rights.approvers;
    if (list === undefined) continue;
    approvers = approvers === undefined ? [...new Set(list)] : approvers.filter((name) => list.includes(name));
  }
  const quorum = Math.max(1, ...ruled.map((call) => call.rights.quorum));
  const allowSelfApproval = ruled.every((call) => call.rights.allowSelfApproval);
  const limited = ruled.filter((call) => call.rights.approvers !== undefined);
  const lists = limited.map(
    (call) => `${call.toolName}: ${(call.rights.approvers as string[]).join(', ') || 'nobody'}`,
  );
  if (approvers !== undefined && approvers.length === 0) {
    return {
      problem:
        `No one may decide every call of this plan (${[...new Set(lists)].join('; ')}). ` +
        'Propose the calls in separate plans, or make them one by one.',
    };
  }
  const eligible = approvers?.filter((name) => allowSelfApproval || name !== requester);
  if (eligible !== undefined && eligible.length < quorum) {
    return {
      problem:
        `This plan needs ${quorum} approvers who may decide every call in it, but only ${eligible.join(', ') || 'nobody'} may (${[...new Set(lists)].join('; ')}). ` +
        'Propose the calls in separate plans, or make them one by one.',
    };
  }
  return {
    rights: {
      ...(approvers !== undefined && { approvers }),
      allowSelfApproval,
      quorum,
      ...(requester !== undefined && { requester }),
    },
  };
}

/**
 * Why an approved plan's `entry` does not cover `call`, or undefined when it does: the same tool and arguments' digest,
 * and the people who approved the plan could have approved this call under its own rights as the worker resolved
 * them now (the one approver rule, `approverRefusal`; a quorum counts the plan's approvers).
 */
export function planCoverProblem(
  entry: PlanEntry,
  call: { toolName: string; inputDigest: string; rights?: ApprovalRights },
  approvedBy: readonly string[],
): string | undefined {
  if (entry.toolName !== call.toolName || entry.inputDigest !== call.inputDigest) return 'not on the plan';
  const { rights } = call;
  if (!rights) return undefined;
  if (rights.quorum > 1 && approvedBy.length < rights.quorum) {
    return `the call needs ${rights.quorum} approvers; the plan had ${approvedBy.length}`;
  }
  const people = approvedBy.length > 0 ? approvedBy : [undefined];
  for (const person of people) {
    const refusal = approverRefusal('plan', rights, person, 'approve');
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}

/** What the model reads when its plan is approved: who approved it and which calls it covers. */
export function approvedPlanText(calls: readonly ProposedCall[], approvedBy: readonly string[]): string {
  const who = approvedBy.length > 0 ? approvedBy.join(', ') : 'an approver';
  const listed = calls.map((call, index) => `${index + 1}. ${call.toolName} ${JSON.stringify(call.input)}`);
  return [
    `Plan approved by ${who}. These calls run once each in this turn without asking:`,
    ...listed,
    'Make them with exactly these arguments. Any other call, a changed argument, or a call made again asks as usual.',
  ].join('\n');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function quoted(keys: string[]): string {
  return keys
    .slice(0, 5)
    .map((key) => `"${key.slice(0, 50)}"`)
    .join(', ');
}

/** How deeply `value` nests, counted without recursion (a value may come from anywhere). */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (typeof current !== 'object' || current === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > planLimits.depth) return deepest;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return deepest;
}
