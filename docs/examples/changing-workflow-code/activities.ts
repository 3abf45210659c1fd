// The activities of the example workflow. Workflow code imports this module as types only.

/** An expense someone asked to be paid. */
export interface Expense {
  expenseId: string;
  amount: number;
}

/** The example's activities, as the worker registers them. */
export const expenseActivities = {
  /** Tells the approver that an expense waits (added by the change the example guards). */
  async notifyApprover(expense: Expense): Promise<void> {
    console.log(`expense ${expense.expenseId}: ${expense.amount} waits for a decision`);
  },
  /** Pays an approved expense. */
  async pay(expense: Expense): Promise<string> {
    return `paid ${expense.amount} for ${expense.expenseId}`;
  },
};
