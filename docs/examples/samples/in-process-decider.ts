// docs/approvals-and-tools.md's in-process decider, type-checked here (test/docs/code-samples.test.ts).
import { createTollgateWorker, type TollgateWorkerOptions } from 'tollgate';

export async function workerWithDecider(options: TollgateWorkerOptions) {
  const worker = await createTollgateWorker({
    ...options,
    onToolApproval: async ({ toolName, input }) =>
      toolName === 'readFile' && String((input as { path?: unknown }).path).startsWith('/tmp/') ? 'approve' : 'ask',
  });
  return worker;
}
