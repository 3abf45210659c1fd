import { commandName } from '../../src/cli/command-name';
import { connectionProblemOf, temporalUnavailableMessage } from '../../src/cli/connection-problem';

describe('connectionProblemOf', () => {
  it('treats a gRPC UNAVAILABLE or a deadline, also as a cause, as Temporal being away', () => {
    expect(connectionProblemOf({ code: 14, message: '14 UNAVAILABLE: No connection established\nLast error' })).toEqual(
      {
        type: 'unavailable',
        detail: '14 UNAVAILABLE: No connection established',
      },
    );
    const wrapped = Object.assign(new Error('Failed to query workflow'), { cause: { code: 4, message: 'deadline' } });
    expect(connectionProblemOf(wrapped).type).toBe('unavailable');
    expect(connectionProblemOf(new Error('connect ECONNREFUSED 127.0.0.1:7233')).type).toBe('unavailable');
  });

  it('keeps any other error apart, with its first line', () => {
    expect(connectionProblemOf(Object.assign(new Error('Query failed\nstack'), { code: 3 }))).toEqual({
      type: 'other',
      detail: 'Query failed',
    });
  });
});

describe('temporalUnavailableMessage', () => {
  it('names the address and the fix', () => {
    const message = temporalUnavailableMessage('localhost:7233', 'nothing listens on localhost:7233');
    expect(message).toMatch(/^Temporal unavailable at localhost:7233 \(nothing listens/);
    expect(message).toContain('npm run dev');
    expect(message).toContain('TEMPORAL_ADDRESS');
  });
});

describe('commandName', () => {
  it('says `npx tollgate` when npm ran the CLI, as from a fresh clone, else `tollgate`', () => {
    expect(commandName({ npm_command: 'exec' })).toBe('npx tollgate');
    expect(commandName({})).toBe('tollgate');
    expect(commandName({ npm_command: 'run-script' })).toBe('tollgate');
  });
});
