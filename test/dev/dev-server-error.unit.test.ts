import { crashedDuringStartup, DevServerError, tookAPortInUse } from '../../src/dev/dev-server-error';

const goPanic = [
  'panic: runtime error: invalid memory address or nil pointer dereference',
  '[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x1d54ba7]',
  'goroutine 1 [running]:',
  'go.temporal.io/server/temporal.NewServerFx(...)',
].join('\n');

function exitedDuringStartup(output: string): DevServerError {
  return new DevServerError(
    `The Temporal dev server exited during startup (exit code 2). Its last output:\n${output}`,
    '127.0.0.1:7233',
    output,
  );
}

describe('crashedDuringStartup', () => {
  it('is true for a server that exited during start-up with a Go panic', () => {
    expect(crashedDuringStartup(exitedDuringStartup(goPanic))).toBe(true);
    expect(crashedDuringStartup(exitedDuringStartup(`time=... level=WARN msg=starting\n${goPanic}`))).toBe(true);
  });

  it('is false for a start-up that failed for a reason a second try would meet again', () => {
    expect(crashedDuringStartup(exitedDuringStartup('Error: unknown flag: --no-such-flag'))).toBe(false);
    expect(crashedDuringStartup(exitedDuringStartup('listen tcp 127.0.0.1:7233: bind: address already in use'))).toBe(
      false,
    );
    // A panic mentioned inside a line is not the server's own crash.
    expect(crashedDuringStartup(exitedDuringStartup('level=ERROR msg="recovered from panic: bad request"'))).toBe(
      false,
    );
  });

  it('is false for a server that started but was not ready, and for other errors', () => {
    expect(
      crashedDuringStartup(
        new DevServerError(
          `The Temporal dev server at 127.0.0.1:7233 was not ready within 30s: …\n${goPanic}`,
          '127.0.0.1:7233',
        ),
      ),
    ).toBe(false);
    expect(crashedDuringStartup(new Error(`exited during startup\n${goPanic}`))).toBe(false);
  });
});

describe('tookAPortInUse', () => {
  it('is true for a server that exited during start-up saying a port was taken', () => {
    expect(tookAPortInUse(exitedDuringStartup('listen tcp 127.0.0.1:7233: bind: address already in use'))).toBe(true);
  });

  it('is false for another exit, and for a message that only quotes such output', () => {
    expect(tookAPortInUse(exitedDuringStartup(goPanic))).toBe(false);
    expect(
      tookAPortInUse(
        new DevServerError('Cannot start: gRPC port 127.0.0.1:7233 said address already in use', '127.0.0.1:7233'),
      ),
    ).toBe(false);
  });
});
