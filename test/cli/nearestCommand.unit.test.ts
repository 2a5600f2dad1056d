import { describe, expect, it } from 'vitest';
import { editDistance, nearest } from '../../cli/nearestCommand.ts';

describe('nearest command', () => {
  it('counts insertions, deletions, substitutions and swapped neighbours as one slip each', () => {
    expect(editDistance('list', 'list')).toBe(0);
    expect(editDistance('lsit', 'list')).toBe(1);
    expect(editDistance('improt', 'import')).toBe(1);
    expect(editDistance('serv', 'serve')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('suggests a near command and nothing for a word far from all', () => {
    const words = ['serve', 'demo', 'import', 'product', 'offer', 'promo', 'replay'];
    expect(nearest('improt', words)).toBe('import');
    expect(nearest('prodcut', words)).toBe('product');
    expect(nearest('Demo', words)).toBe('demo');
    expect(nearest('frobnicate', words)).toBeNull();
    expect(nearest('x', words)).toBeNull();
  });
});
