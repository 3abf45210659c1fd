import { errorSentence, statusSentence } from '../../examples/chat/readable';

describe('errorSentence', () => {
  it('reads a problem+json body as its detail', () => {
    const body = JSON.stringify({
      type: 'urn:tollgate:problem:payload-too-large',
      title: 'Payload too large',
      status: 413,
      detail: 'The message has 120,000 characters; a chat message may have at most 100,000.',
    });
    expect(errorSentence(body)).toBe('The message has 120,000 characters; a chat message may have at most 100,000.');
  });

  it('says the gateway could not be reached instead of "Failed to fetch"', () => {
    expect(errorSentence('Failed to fetch')).toBe(
      'The gateway could not be reached. Check that it is running, then send again.',
    );
  });

  it('keeps a sentence that is already one', () => {
    expect(errorSentence('The turn failed: no worker.')).toBe('The turn failed: no worker.');
  });
});

describe('statusSentence', () => {
  it('never shows the chat library’s own words', () => {
    expect(statusSentence('submitted', 0, 0)).toBe('Sending…');
    expect(statusSentence('streaming', 0, 0)).toBe('The agent is answering…');
    expect(statusSentence('ready', 0, 0)).toBe('Ready.');
    expect(statusSentence('ready', 2, 1)).toBe(
      '2 tool calls wait for your decision. Your queued message will be sent after.',
    );
  });
});
