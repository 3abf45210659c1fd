import { workflowInfo } from '@temporalio/workflow';

/** Server-side limits a turn or conversation keeps well below, whatever the server suggests: 50 MB and 51,200 events fail it. */
const ownLimits = { historyBytes: 20_000_000, historyEvents: 20_000 };

/** Whether the workflow's history has grown large enough to continue as new: Temporal suggests it, or our own ceiling. */
export function historyIsLarge(): boolean {
  const info = workflowInfo();
  return (
    info.continueAsNewSuggested ||
    info.historySize > ownLimits.historyBytes ||
    info.historyLength > ownLimits.historyEvents
  );
}
