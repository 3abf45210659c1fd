import { toChatMessages } from '../../../src/activities/model/to-chat-messages';

describe('toChatMessages', () => {
  it('shows the model the images a person sent and names other files', () => {
    const [message] = toChatMessages([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is in this picture?' },
          { type: 'file', data: 'iVBORw0KGgo=', mediaType: 'image/png', filename: 'cat.png' },
          {
            type: 'file',
            data: 'https://example.com/report.pdf',
            mediaType: 'application/pdf',
            filename: 'report.pdf',
          },
        ],
      },
    ]);
    expect(message).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'what is in this picture?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        { type: 'text', text: '[The user attached report.pdf (application/pdf); its content is not shown to you.]' },
      ],
    });
  });

  it('keeps plain text messages as text, and leaves out assistant messages that only ask for approval', () => {
    expect(
      toChatMessages([
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        { role: 'assistant', content: [{ type: 'tool-approval-request', approvalId: 'a', toolCallId: 'c' }] },
      ]),
    ).toEqual([{ role: 'user', content: 'hi' }]);
  });
});

describe('toChatMessages with a tool that returned an image', () => {
  it('shows the model the image in a user message after the tool results, naming the tool', () => {
    const messages = toChatMessages([
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'everything__get_image', input: {} }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'everything__get_image',
            output: {
              type: 'content',
              value: [
                { type: 'text', text: 'A tiny image' },
                { type: 'image-data', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
              ],
            },
          },
        ],
      },
    ]);
    expect(messages.slice(1)).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: 'A tiny image\n[image-data]' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'The image returned by everything__get_image in the tool results above:' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        ],
      },
    ]);
  });
});
