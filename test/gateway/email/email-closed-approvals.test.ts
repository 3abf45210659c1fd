import { emailExtension } from '../../../src/gateway/email';
import { uniqueMarker, waitFor, waitForPending } from '../../support/test-environment';
import { decisionLink, openLink, testLinkSecret } from './email-link-visits';
import { useTurnGateway } from '../../support/turn-gateway-fixture';

// A mail cannot be changed once sent: its links' page is where a closed approval must show as closed.
const stack = useTurnGateway({
  gateway: { extensions: [emailExtension({ secrets: [testLinkSecret], rateLimit: { max: 10_000 } })] },
});

describe('an email link to an approval closed elsewhere', () => {
  it('opens on who decided it through the gateway, with no form to decide again', async () => {
    const marker = uniqueMarker();
    stack.environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'old.log' } }] },
      { text: 'done' },
    );
    const handle = await stack.environment.tollgate.startTurn({
      messages: [{ role: 'user', content: `${marker} tidy` }],
    });
    const [approval] = await waitForPending(handle, 1);
    const target = { workflowId: handle.workflowId, approvalId: approval!.approvalId };
    expect((await openLink(decisionLink(stack.gateway.url, target, 'approve'))).text).toContain('<form');

    const decided = await stack.gateway.call(
      'POST',
      `/v1/approvals/${encodeURIComponent(approval!.approvalId)}/decision`,
      {
        as: 'bob',
        body: { approved: true },
      },
    );
    expect(decided.status).toBe(200);
    await handle.result();

    const approve = await openLink(decisionLink(stack.gateway.url, target, 'approve'));
    expect(approve.status).toBe(200);
    expect(approve.text).toContain('already approved by bob');
    expect(approve.text).not.toContain('<form');
    const deny = await openLink(decisionLink(stack.gateway.url, target, 'deny'));
    expect(deny.status).toBe(409);
    expect(deny.text).toContain('already approved by bob');
    expect(deny.text).not.toContain('<form');
  });

  it('opens on "superseded" when a newer message replaced the request, with no form', async () => {
    const marker = uniqueMarker();
    const conversationId = `email-closed-${marker}`;
    stack.environment.model.scriptFor(
      marker,
      { toolCalls: [{ id: `${marker}-1`, name: 'deleteFile', arguments: { path: 'draft.txt' } }] },
      { text: 'left it' },
      { text: 'something else then' },
    );
    const { turnId } = await stack.environment.tollgate.sendMessage(
      conversationId,
      { content: `${marker} delete the draft` },
      { onMessageWhilePending: 'supersede' },
    );
    const waiting = await waitFor(
      () => stack.environment.tollgate.conversationState(conversationId),
      (state) => state.pending.length === 1,
    );
    const target = { workflowId: turnId, approvalId: waiting.pending[0]!.approvalId };
    await stack.environment.tollgate.sendMessage(conversationId, { content: `${marker} never mind` });
    await stack.environment.tollgate.turn(turnId).result();

    const page = await openLink(decisionLink(stack.gateway.url, target, 'approve'));
    expect(page.status).toBe(410);
    expect(page.text).toContain('Approval superseded');
    expect(page.text).toContain('A newer message replaced this request');
    expect(page.text).not.toContain('<form');
  });
});
