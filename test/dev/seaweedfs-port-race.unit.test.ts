import { lostAPortRace } from '../../src/dev/seaweedfs';

describe('lostAPortRace', () => {
  it("knows SeaweedFS's exit when a port chosen for it was taken before it could bind it", () => {
    const output = [
      'S3           starting',
      'F1127 14:59:39.838292 s3.go:434 S3 API Server listener on 127.0.0.1:45373 error: listen tcp 127.0.0.1:45373: ' +
        'bind: address already in use',
      'goroutine 355 [running]:',
    ].join('\n');
    expect(lostAPortRace(output)).toBe(true);
  });

  it('leaves other start-up failures to fail, once', () => {
    expect(lostAPortRace('F1127 master.go:210 open /data/seaweed: permission denied')).toBe(false);
    expect(lostAPortRace('')).toBe(false);
  });
});
