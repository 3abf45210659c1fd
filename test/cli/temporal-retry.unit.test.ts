import { TemporalRetry } from '../../src/cli/temporal-retry';

const unavailable = () => Object.assign(new Error('14 UNAVAILABLE: No connection established'), { code: 14 });

describe('TemporalRetry', () => {
  it('tries again while Temporal is away, with one notice, and says when it is back', async () => {
    const lines: string[] = [];
    const retry = new TemporalRetry({ address: 'localhost:7233', print: (line) => lines.push(line), intervalMs: 5 });
    let attempts = 0;
    const value = await retry.run(async () => {
      attempts += 1;
      if (attempts < 4) throw unavailable();
      return 'state';
    });
    expect(value).toBe('state');
    expect(attempts).toBe(4);
    expect(lines).toEqual([
      'Temporal unavailable at localhost:7233, retrying… (14 UNAVAILABLE: No connection established; is `npm run dev` still running?)',
      'Connected to Temporal at localhost:7233.',
    ]);
  });

  it('gives up after its bound with an error naming the address and the fix', async () => {
    const lines: string[] = [];
    const retry = new TemporalRetry({
      address: 'db:7233',
      print: (line) => lines.push(line),
      giveUpAfterMs: 60,
      intervalMs: 10,
    });
    const failure = (await retry.run(() => Promise.reject(unavailable())).catch((error: unknown) => error)) as Error;
    expect(failure.name).toBe('TemporalUnavailableError');
    expect(failure.message).toMatch(
      /^Temporal unavailable at db:7233 \(14 UNAVAILABLE.*npm run dev.*TEMPORAL_ADDRESS.*Tried for \d+ s\.$/,
    );
    expect(lines).toHaveLength(1);
  });

  it('throws any other error at once', async () => {
    const retry = new TemporalRetry({ address: 'localhost:7233', print: () => undefined, intervalMs: 5 });
    let attempts = 0;
    const failure = await retry
      .run(() => {
        attempts += 1;
        return Promise.reject(Object.assign(new Error('Query failed'), { code: 3 }));
      })
      .catch((error: unknown) => error);
    expect((failure as Error).message).toBe('Query failed');
    expect(attempts).toBe(1);
  });
});
