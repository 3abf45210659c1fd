import {
  inspectPayload,
  signalPayloadLimits,
  summarisePayload,
  toolDataPayloadLimits,
} from '../../../src/workflows/guards/bounded-payload';

/** `[[[…]]]` nested `depth` deep, built as a sender's JSON would arrive (JSON.parse does not recurse). */
const nestedArray = (depth: number): unknown => JSON.parse('['.repeat(depth) + ']'.repeat(depth));
const nestedObject = (depth: number): unknown => JSON.parse('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));

/**
 * `value` seen through proxies that count what is read of it: the objects and arrays opened, and the properties read.
 * How much of a value a check reads shows that it stopped early, whatever the machine's speed.
 */
function watched(value: unknown): { value: unknown; reads: { opened: Set<object>; properties: number } } {
  const reads = { opened: new Set<object>(), properties: 0 };
  const wrap = (inner: unknown): unknown =>
    typeof inner === 'object' && inner !== null
      ? new Proxy(inner, {
          get(target, key, receiver) {
            reads.opened.add(target);
            reads.properties += 1;
            return wrap(Reflect.get(target, key, receiver));
          },
          ownKeys(target) {
            reads.opened.add(target);
            return Reflect.ownKeys(target);
          },
        })
      : inner;
  return { value: wrap(value), reads };
}

describe('inspectPayload', () => {
  it('accepts a decision as a bot sends it', () => {
    const decision = {
      approvalId: 'dHVybg.1',
      approved: true,
      reason: 'looks fine',
      approver: 'ana',
      signature: { keyId: 'k1', signedAt: '2026-01-01T00:00:00Z', value: 'c2ln' },
    };
    expect(inspectPayload(decision, signalPayloadLimits)).toEqual({ bounded: true });
  });

  it('refuses an array or an object nested 100,000 deep, opening no more levels than its limit', () => {
    const array = watched(nestedArray(100_000));
    expect(inspectPayload(array.value, signalPayloadLimits)).toEqual({
      bounded: false,
      reason: 'nested deeper than 8 levels',
    });
    expect(array.reads.opened.size).toBeLessThanOrEqual(8);
    const object = watched({ approvalId: 'x', approver: nestedObject(100_000) });
    expect(inspectPayload(object.value, toolDataPayloadLimits)).toEqual({
      bounded: false,
      reason: 'nested deeper than 64 levels',
    });
    expect(object.reads.opened.size).toBeLessThanOrEqual(64);
  });

  it('refuses a huge string, many small values, and many keys', () => {
    expect(inspectPayload({ reason: 'x'.repeat(2_000_000) }, signalPayloadLimits)).toEqual({
      bounded: false,
      reason: 'more than 64000 characters of text',
    });
    expect(inspectPayload(new Array(5_000).fill(1), signalPayloadLimits)).toMatchObject({ bounded: false });
    const manyKeys = Object.fromEntries(Array.from({ length: 5_000 }, (_, index) => [`k${index}`, index]));
    expect(inspectPayload(manyKeys, signalPayloadLimits)).toEqual({ bounded: false, reason: 'more than 1000 values' });
  });

  it('refuses a value that refers to itself instead of looping', () => {
    const cyclic: Record<string, unknown> = { approvalId: 'x' };
    cyclic.self = cyclic;
    expect(inspectPayload(cyclic, { maxDepth: 1_000, maxNodes: 1_000_000, maxStringLength: 1_000_000 })).toEqual({
      bounded: false,
      reason: 'nested deeper than 1000 levels',
    });
  });

  it('accepts the same object twice side by side (a shared value is not a cycle)', () => {
    const shared = { a: 1 };
    expect(inspectPayload([shared, shared], signalPayloadLimits)).toEqual({ bounded: true });
  });
});

describe('summarisePayload', () => {
  it('writes a small value whole, as JSON.stringify would', () => {
    const value = { approvalId: 'x', approved: true, reason: undefined, list: [1, undefined, 'two', null] };
    expect(summarisePayload(value)).toEqual({ prefix: JSON.stringify(value), complete: true });
    expect(summarisePayload(null)).toEqual({ prefix: 'null', complete: true });
    expect(summarisePayload('hi')).toEqual({ prefix: '"hi"', complete: true });
  });

  it('keeps only the start of a value nested 100,000 deep', () => {
    const summary = summarisePayload({ approver: nestedArray(100_000) }, 50);
    expect(summary.complete).toBe(false);
    expect(summary.prefix).toBe(`{"approver":${'['.repeat(38)}`);
  });

  it('keeps only the start of a huge string, without copying it whole', () => {
    const summary = summarisePayload({ reason: 'y'.repeat(5_000_000) }, 30);
    expect(summary).toEqual({ prefix: `{"reason":"${'y'.repeat(19)}`, complete: false });
  });

  it('stops early in an array or object of a million entries', () => {
    const array = watched(new Array(1_000_000).fill(7));
    expect(summarisePayload(array.value, 20)).toEqual({
      prefix: '[7,7,7,7,7,7,7,7,7,7',
      complete: false,
    });
    // The twenty-odd items that can show, not a million.
    expect(array.reads.properties).toBeLessThan(50);
  });

  it('writes a cycle as a marker instead of looping', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(summarisePayload(cyclic)).toEqual({ prefix: '{"a":1,"self":"[cycle]"}', complete: true });
  });
});
