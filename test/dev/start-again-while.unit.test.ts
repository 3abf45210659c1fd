import { saysAddressInUse, startAgainWhile } from '../../src/dev/ports';

describe('saysAddressInUse', () => {
  it("knows a server's exit when a port chosen for it was taken before it could bind it", () => {
    const seaweedFs = [
      'S3           starting',
      'F1127 14:59:39.838292 s3.go:434 S3 API Server listener on 127.0.0.1:45373 error: listen tcp 127.0.0.1:45373: ' +
        'bind: address already in use',
      'goroutine 355 [running]:',
    ].join('\n');
    expect(saysAddressInUse(seaweedFs)).toBe(true);
    expect(saysAddressInUse('listen tcp 127.0.0.1:7233: bind: Address already in use')).toBe(true);
  });

  it('leaves other start-up failures alone', () => {
    expect(saysAddressInUse('F1127 master.go:210 open /data/seaweed: permission denied')).toBe(false);
    expect(saysAddressInUse('')).toBe(false);
  });
});

describe('startAgainWhile', () => {
  const lost = new Error('lost a port');
  const lostAPort = (error: unknown) => error === lost;

  it('tries again while a start failed for a passing reason, and says which each time', async () => {
    const outcomes = [lost, lost, 'started'];
    const retries: Array<[number, unknown]> = [];
    const started = await startAgainWhile(
      async () => {
        const next = outcomes.shift();
        if (next instanceof Error) throw next;
        return next;
      },
      lostAPort,
      { onRetry: (error) => retries.push([outcomes.length, error]) },
    );
    expect(started).toBe('started');
    expect(retries).toEqual([
      [2, lost],
      [1, lost],
    ]);
  });

  it('throws any other failure at once, and the last lost port after the last attempt', async () => {
    let starts = 0;
    const other = new Error('permission denied');
    await expect(
      startAgainWhile(async () => {
        starts += 1;
        throw other;
      }, lostAPort),
    ).rejects.toBe(other);
    expect(starts).toBe(1);

    starts = 0;
    await expect(
      startAgainWhile(
        async () => {
          starts += 1;
          throw lost;
        },
        lostAPort,
        { attempts: 3 },
      ),
    ).rejects.toBe(lost);
    expect(starts).toBe(3);
  });
});
