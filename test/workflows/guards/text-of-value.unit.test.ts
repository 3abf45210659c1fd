import { messageOfThrown, textOfValue } from '../../../src/workflows/guards/text-of-value';

/** A value as the workflow receives it: decoded from JSON text a sender wrote. */
const fromJson = (text: string): unknown => JSON.parse(text);

describe('textOfValue', () => {
  it.each([
    ['"stop"', 'stop'],
    ['42', '42'],
    ['1e308', '1e+308'],
    ['-0', '0'],
    ['true', 'true'],
    ['null', 'null'],
    ['"NaN"', 'NaN'],
    ['[1,[2,null],"x"]', '1,2,,x'],
    ['{"a":1}', '[object Object]'],
    ['{"valueOf":"x"}', '[object Object]'],
    ['{"__proto__":{"toString":"x"}}', '[object Object]'],
    ['{"constructor":"x","toJSON":"y"}', '[object Object]'],
  ])('writes %s as String() would', (json, text) => {
    const value = fromJson(json);
    expect(textOfValue(value)).toBe(text);
    expect(String(value)).toBe(text);
  });

  it('writes undefined as String() would', () => {
    expect(textOfValue(undefined)).toBe('undefined');
  });

  it.each(['{"toString":"x"}', '{"toString":"x","valueOf":"y"}', '[1,{"toString":{}}]', '[[[{"toString":1}]]]'])(
    'gives nothing for %s, where String() throws',
    (json) => {
      const value = fromJson(json);
      expect(() => String(value)).toThrow(TypeError);
      expect(textOfValue(value)).toBeUndefined();
    },
  );
});

describe('messageOfThrown', () => {
  it("reads an error's message, and anything else without calling what it carries", () => {
    expect(messageOfThrown(new Error('model step failed'))).toBe('model step failed');
    expect(messageOfThrown('plain text')).toBe('plain text');
    expect(messageOfThrown(fromJson('{"message":{"toString":"x"},"toString":"y"}'))).toBe(
      'an error that cannot be shown as text',
    );
    expect(messageOfThrown(undefined)).toBe('undefined');
  });
});
