import { parseToolArguments } from '../../../src/activities/model/parse-tool-arguments';

describe('parseToolArguments', () => {
  it('reads JSON arguments', () => {
    expect(parseToolArguments('{"path":"a.txt"}')).toEqual({ input: { path: 'a.txt' } });
  });

  it('reads no arguments as an empty object, as models send for tools without parameters', () => {
    expect(parseToolArguments('')).toEqual({ input: {} });
    expect(parseToolArguments('  \n')).toEqual({ input: {} });
  });

  it('keeps malformed arguments as they came, with an error the model can act on', () => {
    const result = parseToolArguments('{"path": "a.txt"');
    expect(result.input).toBe('{"path": "a.txt"');
    expect(result.error).toMatch(/^The arguments are not valid JSON \(.+\)\. Send the arguments as a JSON object\.$/);
  });
});
