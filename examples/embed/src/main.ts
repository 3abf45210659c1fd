import { scriptedModelSettings, startModelServer } from 'tollgate/testing';
import { startApp } from './app';

// Runs one refund turn end to end against a Temporal server, with a scripted model so it needs no API key:
// a lookup and a small refund run at once, two large refunds wait; the gateway approves one and denies the other.
async function main(): Promise<void> {
  const model = await startModelServer();
  model.script(
    {
      toolCalls: [
        { name: 'lookupOrder', arguments: { orderId: 'A-1' } },
        { name: 'refund', arguments: { orderId: 'C-3', amount: 20 } },
        { name: 'refund', arguments: { orderId: 'A-1', amount: 250 } },
        { name: 'refund', arguments: { orderId: 'B-2', amount: 900 } },
      ],
    },
    { text: 'Refunded C-3 and A-1; the refund of B-2 was denied.' },
  );
  const approverToken = 'ana-embed-example-token-0123456789';
  const app = await startApp({
    temporalAddress: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233',
    taskQueue: `refunds-${process.pid}`,
    model: scriptedModelSettings(model),
    approvalSecret: 'embed-example-approval-secret-0123456789',
    approverToken,
  });
  try {
    const handle = await app.tollgate.startTurn({
      messages: [{ role: 'user', content: 'Refund orders A-1 (250), B-2 (900) and C-3 (20).' }],
    });

    // Wait for the two large refunds, as an approver's bot would: through the gateway's REST API.
    const gateway = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${app.gatewayUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${approverToken}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as Record<string, unknown>;
    };
    type Approval = { approvalId: string; toolName: string; input: { orderId: string; amount: number } };
    let approvals: Approval[] = [];
    for (let attempt = 0; approvals.length < 2 && attempt < 300; attempt += 1) {
      const listing = await gateway('GET', `/v1/approvals?workflowId=${encodeURIComponent(handle.workflowId)}`);
      approvals = listing.approvals as Approval[];
      if (approvals.length < 2) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    console.log(`waiting: ${approvals.map((approval) => `${approval.toolName} ${approval.input.orderId}`).join(', ')}`);

    // Approve the refund of A-1, deny the one of B-2.
    for (const approval of approvals) {
      const approved = approval.input.orderId === 'A-1';
      await gateway('POST', `/v1/approvals/${encodeURIComponent(approval.approvalId)}/decision`, {
        approved,
        ...(!approved && { reason: 'Above the refund limit' }),
      });
    }

    // The turn's result: every call's output, the denied one as execution-denied.
    const result = await handle.result();
    for (const message of result.messages) {
      if (message.role !== 'tool') continue;
      for (const part of message.content) {
        if (part.type === 'tool-result') console.log(`result ${part.toolName}: ${JSON.stringify(part.output)}`);
      }
    }
    console.log(`status: ${result.status}`);
    console.log(`text: ${result.text}`);
  } finally {
    await app.close();
    await model.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
