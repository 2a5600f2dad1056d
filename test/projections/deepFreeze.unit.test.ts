import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../platform/lib/deepFreeze.ts';

describe('deepFreeze', () => {
  it('freezes every object and array a value holds, and leaves what it inherits alone', () => {
    const proto = { shared: { n: 1 } };
    const value = Object.assign(Object.create(proto) as { shared: { n: number } }, {
      items: [{ sku: 'A', tags: ['x'] }],
      nested: { deeper: { n: 2 } },
      nothing: null,
    });
    expect(deepFreeze(value)).toBe(value);
    expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(value.items)).toBe(true);
    expect(Object.isFrozen(value.items[0])).toBe(true);
    expect(Object.isFrozen(value.items[0]!.tags)).toBe(true);
    expect(Object.isFrozen(value.nested.deeper)).toBe(true);
    expect(Object.isFrozen(proto.shared)).toBe(false);
    expect(() => {
      (value.nested.deeper as { n: number }).n = 3;
    }).toThrow(TypeError);
  });
});
