// The README's and docs/public-contract.md's client sample, type-checked here (test/docs/code-samples.test.ts).
import { temporalSettingsFromEnvironment, TollgateClient } from 'tollgate';

export async function startAndApprove(): Promise<void> {
  const tollgate = await TollgateClient.connect(temporalSettingsFromEnvironment()); // TEMPORAL_ADDRESS, ...
  const handle = await tollgate.startTurn({ messages: [{ role: 'user', content: 'run ls' }] });
  for (const approval of await tollgate.pending({ workflowId: handle.workflowId })) {
    await tollgate.decide(approval.approvalId, { approved: true, approver: 'ana' });
  }
  const { status, text, messages, audit } = await handle.result();
  console.log(status, text, messages.length, audit.length);
  await tollgate.close();
}
