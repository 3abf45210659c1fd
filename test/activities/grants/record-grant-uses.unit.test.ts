import { recordingGrantUses } from '../../../src/activities/grants/record-grant-uses';
import type { GrantClaim, LedgerClaimInput } from '../../../src/protocol';
import { FolderSharedRecords } from '../../../src/store/shared-records';
import { temporaryFolder } from '../../support/temporary-folder';

const claimInput: LedgerClaimInput = {
  claimId: 'turn-1#2#0',
  call: {
    workflowId: 'turn-1',
    conversationId: 'turn-1',
    toolName: 'deleteFile',
    input: { path: 'a.txt' },
    inputDigest: 'digest',
  },
  rights: { quorum: 1 },
  limits: {},
};

function recordsFolder() {
  return new FolderSharedRecords(temporaryFolder('tollgate-grant-uses-'));
}

describe('recordingGrantUses', () => {
  it('writes one audit record per covered call, however often a retried step claims it again', async () => {
    const records = recordsFolder();
    const answer: GrantClaim = {
      covered: true,
      grantId: 'grant-0123456789abcdef',
      grantedBy: 'ana',
      used: 3,
      uses: 10,
      claimedAt: '2026-11-27T04:00:00.000Z',
    };
    const claim = recordingGrantUses(async () => answer, records);
    expect(await claim(claimInput, { approvalId: 'approval-1' })).toBe(answer);
    await claim(claimInput, { approvalId: 'approval-1' });
    const names = await records.list('audit');
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^audit\/2026-11-27T040000\.000Z-[0-9a-f]{12}\.json$/);
    expect(JSON.parse((await records.read(names[0]!))!)).toEqual({
      at: '2026-11-27T04:00:00.000Z',
      approver: 'ana',
      identity: 'grant:grant-0123456789abcdef',
      channel: 'grant',
      approvalId: 'approval-1',
      workflowId: 'turn-1',
      approved: true,
      reason: 'Approved by standing grant grant-0123456789abcdef from ana, use 3 of 10.',
      outcome: 'recorded',
      grant: { action: 'use', grantId: 'grant-0123456789abcdef', summary: 'deleteFile, use 3 of 10' },
    });
  });

  it('writes nothing for a call no grant covers', async () => {
    const records = recordsFolder();
    const claim = recordingGrantUses(async () => ({ covered: false }), records);
    expect(await claim(claimInput, { approvalId: 'approval-1' })).toEqual({ covered: false });
    expect(await records.list('audit')).toEqual([]);
  });
});
