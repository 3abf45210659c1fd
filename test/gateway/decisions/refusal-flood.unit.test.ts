import type { DecisionAttempt } from '../../../src/gateway';
import { RefusalFlood } from '../../../src/gateway/decisions/refusal-flood';

function refusal(index: number, channel: DecisionAttempt['channel'] = 'slack'): DecisionAttempt {
  return {
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, index)).toISOString(),
    approver: '(unauthenticated)',
    channel,
    approvalId: '(unknown)',
    approved: false,
    outcome: 'refused',
    refusal: { code: 'unauthorized', detail: 'The request does not carry a valid Slack signature.' },
  };
}

describe('RefusalFlood', () => {
  it('keeps the first refusals alike one by one and counts the rest of the window into one line', async () => {
    let now = 0;
    const written: DecisionAttempt[] = [];
    const flood = new RefusalFlood(async (attempt) => void written.push(attempt), {
      keptOneByOne: 3,
      windowMs: 60_000,
      now: () => now,
    });
    for (let index = 0; index < 1_000; index++) await flood.offer('slack|unauthorized|', refusal(index));
    expect(written).toHaveLength(3);
    await flood.flush();
    expect(written).toHaveLength(4);
    expect(written[3]).toEqual({ ...refusal(999), coalesced: { count: 997, since: refusal(3).at } });

    // A new window keeps refusals one by one again; nothing is left to flush.
    now = 61_000;
    await flood.offer('slack|unauthorized|', refusal(1_000));
    expect(written).toHaveLength(5);
    expect(written[4]).toEqual(refusal(1_000));
  });

  it('writes the counted line when the window ends, without being asked', async () => {
    const written: DecisionAttempt[] = [];
    const flood = new RefusalFlood(async (attempt) => void written.push(attempt), { keptOneByOne: 1, windowMs: 50 });
    await flood.offer('email|link-signature|', refusal(0, 'email'));
    await flood.offer('email|link-signature|', refusal(1, 'email'));
    await flood.offer('email|link-signature|', refusal(2, 'email'));
    expect(written).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(written.map((attempt) => attempt.coalesced)).toEqual([undefined, { count: 2, since: refusal(1).at }]);
  });

  it('counts each kind of refusal on its own: one flood does not hide another', async () => {
    const written: DecisionAttempt[] = [];
    const flood = new RefusalFlood(async (attempt) => void written.push(attempt), { keptOneByOne: 2 });
    for (let index = 0; index < 10; index++) {
      await flood.offer('slack|unauthorized|', refusal(index));
      await flood.offer('rest|rate-limited|ana', refusal(index, 'rest'));
    }
    expect(written.map((attempt) => attempt.channel)).toEqual(['slack', 'rest', 'slack', 'rest']);
    await flood.flush();
    expect(written.slice(4).map((attempt) => [attempt.channel, attempt.coalesced?.count])).toEqual([
      ['slack', 8],
      ['rest', 8],
    ]);
  });
});
