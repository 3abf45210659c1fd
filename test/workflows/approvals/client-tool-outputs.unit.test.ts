import type { ToolCallPart } from '../../../src/protocol';
import { ClientToolOutputs } from '../../../src/workflows/approvals/client-tool-outputs';

const pickColour: ToolCallPart = {
  type: 'tool-call',
  toolCallId: 'c1',
  toolName: 'pickColour',
  input: { hint: 'sky' },
};

describe('ClientToolOutputs', () => {
  it('lists the calls that wait for a client, and no longer lists one once answered', () => {
    const outputs = new ClientToolOutputs();
    outputs.expect(pickColour);
    expect(outputs.awaiting()).toEqual([{ toolCallId: 'c1', toolName: 'pickColour', input: { hint: 'sky' } }]);
    outputs.record({ toolCallId: 'c1', output: 'blue' }, { type: 'text', value: 'blue' });
    expect(outputs.awaiting()).toEqual([]);
    expect(outputs.outputOf('c1')).toEqual({ type: 'text', value: 'blue' });
    expect(outputs.callOf('c1')).toBe(pickColour);
  });

  it('accepts the first output of a waiting call', () => {
    const outputs = new ClientToolOutputs();
    outputs.expect(pickColour);
    expect(outputs.check({ toolCallId: 'c1', output: 'blue' })).toEqual({ accepted: true, repeat: false });
  });

  it('accepts the same submission again as a harmless repeat (a client that retried)', () => {
    const outputs = new ClientToolOutputs();
    outputs.expect(pickColour);
    outputs.record({ toolCallId: 'c1', output: 'blue' }, { type: 'text', value: 'blue' });
    expect(outputs.check({ toolCallId: 'c1', output: 'blue' })).toEqual({ accepted: true, repeat: true });
  });

  it('refuses a different second output: the first one wins', () => {
    const outputs = new ClientToolOutputs();
    outputs.expect(pickColour);
    outputs.record({ toolCallId: 'c1', output: 'blue' }, { type: 'text', value: 'blue' });
    expect(outputs.check({ toolCallId: 'c1', output: 'red' })).toEqual({
      accepted: false,
      type: 'ConflictingToolOutput',
      message: 'Tool call "c1" already has an output; the first one wins.',
    });
    expect(outputs.check({ toolCallId: 'c1', error: 'the user closed the tab' })).toMatchObject({
      accepted: false,
      type: 'ConflictingToolOutput',
    });
    expect(outputs.outputOf('c1')).toEqual({ type: 'text', value: 'blue' });
  });

  it('refuses an output for a call that does not wait for a client', () => {
    const outputs = new ClientToolOutputs();
    outputs.expect(pickColour);
    expect(outputs.check({ toolCallId: 'c2', output: 'blue' })).toEqual({
      accepted: false,
      type: 'UnknownToolCall',
      message: 'Tool call "c2" is not waiting for a client\'s output.',
    });
  });
});
