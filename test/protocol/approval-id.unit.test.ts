import { formatApprovalId, workflowIdOfApproval } from '../../src/protocol';

describe('approval ids', () => {
  it.each(['turn-1', 'conversation/42/turn-3', 'ünïcödé ✓ 🚀', 'a.b.c', 'x'])(
    'carry the workflow id %p and give it back',
    (workflowId) => {
      const approvalId = formatApprovalId(workflowId, '7f1c2a9e-0b7d-4f3e-9a51-2b1f0c6d8e44');
      expect(approvalId).toMatch(/^[A-Za-z0-9_-]+\.[0-9a-f-]+$/);
      expect(workflowIdOfApproval(approvalId)).toBe(workflowId);
    },
  );

  it.each(['aitxt-123', 'no-separator', '.leading', 'trailing.', '!!!.uuid'])(
    'find no workflow id in a foreign id %p',
    (approvalId) => {
      expect(workflowIdOfApproval(approvalId)).toBeUndefined();
    },
  );
});
