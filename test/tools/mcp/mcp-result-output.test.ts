import { mcpResultOutput } from '../../../src/tools/mcp';

describe('mcpResultOutput', () => {
  it('gives text as text and an isError result as an error the model reads', () => {
    expect(
      mcpResultOutput({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toEqual({
      type: 'text',
      value: 'a\nb',
    });
    expect(mcpResultOutput({ content: [{ type: 'text', text: 'Access denied' }], isError: true })).toEqual({
      type: 'error-text',
      value: 'Access denied',
    });
    expect(mcpResultOutput({ isError: true })).toMatchObject({ type: 'error-text' });
  });

  it('gives structured content as json when text alone stands beside it', () => {
    expect(
      mcpResultOutput({
        content: [{ type: 'text', text: '{"temperature":33}' }],
        structuredContent: { temperature: 33 },
      }),
    ).toEqual({ type: 'json', value: { temperature: 33 } });
  });

  it('gives images, resources and resource links as content parts in the AI SDK shape', () => {
    expect(
      mcpResultOutput({
        content: [
          { type: 'text', text: 'Here:' },
          { type: 'image', data: 'iVBOR', mimeType: 'image/png' },
          { type: 'resource_link', uri: 'demo://r/1', name: 'R1', mimeType: 'text/plain' },
          { type: 'resource', resource: { uri: 'demo://r/2', text: 'inline text' } },
        ],
        structuredContent: { n: 1 },
      }),
    ).toEqual({
      type: 'content',
      value: [
        { type: 'text', text: 'Here:' },
        { type: 'image-data', data: 'iVBOR', mediaType: 'image/png' },
        { type: 'text', text: 'Resource link: R1 <demo://r/1> (text/plain)' },
        { type: 'text', text: 'inline text' },
        { type: 'text', text: '{"n":1}' },
      ],
    });
  });
});
