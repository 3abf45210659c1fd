import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DecisionAudit, type DecisionAttempt } from '../../../src/gateway';
import { temporaryFolder } from '../../support/temporary-folder';

function attempt(index: number, outcome: DecisionAttempt['outcome']): DecisionAttempt {
  return {
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
    approver: 'ana',
    channel: 'rest',
    approvalId: `approval-${index % 2}`,
    workflowId: 'turn-1',
    approved: true,
    outcome,
    ...(outcome === 'refused' && { refusal: { code: 'conflict', detail: 'already denied' } }),
  };
}

describe('DecisionAudit', () => {
  it('appends every attempt to its JSONL file in order, refusals included, and filters by approval', async () => {
    const file = path.join(temporaryFolder('tollgate-audit-'), 'decisions.jsonl');
    const audit = new DecisionAudit({ file });
    const attempts = Array.from({ length: 20 }, (_, index) => attempt(index, index % 3 === 0 ? 'refused' : 'recorded'));
    await Promise.all(attempts.map((entry) => audit.record(entry)));
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual(attempts);
    expect(audit.list({ approvalId: 'approval-1' })).toEqual(attempts.filter((_, index) => index % 2 === 1));
    // A second audit on the same file appends; nothing is rewritten.
    await new DecisionAudit({ file }).record(attempt(99, 'repeat'));
    expect(readFileSync(file, 'utf8').trimEnd().split('\n')).toHaveLength(21);
  });

  it('keeps only the newest attempts in memory', async () => {
    const audit = new DecisionAudit({ memoryLimit: 3 });
    for (let index = 0; index < 5; index++) await audit.record(attempt(index, 'recorded'));
    expect(audit.list().map((entry) => entry.at)).toEqual([2, 3, 4].map((index) => attempt(index, 'recorded').at));
  });
});
