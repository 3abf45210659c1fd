// docs/asking-less.md's plan approval, type-checked here (test/docs/code-samples.test.ts).
import { createTollgateWorker, type TollgateWorkerOptions } from 'tollgate';

export async function workerWithPlanApproval(options: TollgateWorkerOptions) {
  const worker = await createTollgateWorker({
    ...options,
    // Offers the model the built-in proposePlan tool (TOLLGATE_PLAN_APPROVAL=true for `npm run worker`).
    planApproval: true,
  });
  return worker;
}
