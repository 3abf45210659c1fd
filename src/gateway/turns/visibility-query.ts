import { taskQueuesFilter } from '../../client/task-queues-filter';

// Temporal's list filter is a string with no parameters. Values put into it are checked against this
// alphabet rather than escaped: a value that needs escaping is refused, never interpreted.
const safeLiteral = /^[A-Za-z0-9._:@+=~/-]{1,1000}$/;

/** A string literal of a visibility query, or undefined when the value holds anything outside the safe alphabet. */
export function visibilityLiteral(value: string): string | undefined {
  return safeLiteral.test(value) ? `'${value}'` : undefined;
}

/** Turns on these task queues that have approvals pending, as the `TollgatePendingApprovals` search attribute says. */
export function turnsWithPendingApprovalsQuery(taskQueues: string | readonly string[]): string {
  const queues = taskQueuesFilter(typeof taskQueues === 'string' ? [taskQueues] : taskQueues);
  return `WorkflowType = 'agentTurn' AND ExecutionStatus = 'Running' AND ${queues} AND TollgatePendingApprovals IS NOT NULL`;
}

/** The turn whose `TollgatePendingApprovals` holds this approvalId, or undefined when the id cannot be put in a query. */
export function turnOfApprovalQuery(approvalId: string): string | undefined {
  const literal = visibilityLiteral(approvalId);
  return literal && `TollgatePendingApprovals = ${literal}`;
}
