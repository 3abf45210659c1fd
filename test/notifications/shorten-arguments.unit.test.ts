import { shortenArguments } from '../../src/notifications/shorten-arguments';

const limits = { stringLimit: 10, itemLimit: 2, depthLimit: 2 };

describe('shortenArguments', () => {
  it('leaves small arguments as they are', () => {
    const input = { path: 'a.txt', force: true, count: 3, tags: ['x'], none: null };
    expect(shortenArguments(input, { ...limits, itemLimit: 10 })).toEqual(input);
  });

  it('cuts a long string and says how much is hidden', () => {
    expect(shortenArguments('rm -rf /var/lib/data', limits)).toBe('rm -rf /va… (10 more characters)');
  });

  it('shows the first items of a long list and how many more there are', () => {
    expect(shortenArguments([1, 2, 3, 4], limits)).toEqual([1, 2, '… (2 more items)']);
  });

  it('shows the first keys of a large object and how many more there are', () => {
    expect(shortenArguments({ a: 1, b: 2, c: 3 }, limits)).toEqual({ a: 1, b: 2, '…': '1 more keys' });
  });

  it('stops at the depth limit with a marker', () => {
    expect(shortenArguments({ a: { b: { c: 1 } }, list: [[1]] }, limits)).toEqual({ a: { b: '{…}' }, list: ['[…]'] });
  });

  it('keeps a key named __proto__ as an ordinary key, so arguments cannot change what a person is shown', () => {
    const input = JSON.parse('{"__proto__": {"approved": true}, "path": "a"}') as unknown;
    const shown = shortenArguments(input, { ...limits, itemLimit: 10 }) as Record<string, unknown>;
    expect(Object.keys(shown)).toEqual(['__proto__', 'path']);
    expect(Object.getPrototypeOf(shown)).toBe(Object.prototype);
    expect((shown as { approved?: unknown }).approved).toBeUndefined();
  });
});
