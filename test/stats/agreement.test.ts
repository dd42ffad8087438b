import { describe, expect, it } from 'vitest';
import { cohenKappa, conditionalMutualInformation } from '../../src/stats';

describe('cohenKappa', () => {
  it('is 1 for perfect agreement, 0 at chance, and matches a textbook table', () => {
    expect(cohenKappa(['a', 'b', 'a', 'c'], ['a', 'b', 'a', 'c'])).toBe(1);
    // Independent halves: observed agreement equals chance.
    expect(cohenKappa(['a', 'a', 'b', 'b'], ['a', 'b', 'a', 'b'])).toBeCloseTo(0, 12);
    // Two raters, 50 items: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no: po 0.7, pe 0.5, kappa 0.4.
    const a = [...Array(25).fill('yes'), ...Array(25).fill('no')];
    const b = [...Array(20).fill('yes'), ...Array(5).fill('no'), ...Array(10).fill('yes'), ...Array(15).fill('no')];
    expect(cohenKappa(a, b)).toBeCloseTo(0.4, 12);
  });

  it('is undefined when both sides give one label, and refuses unpaired input', () => {
    expect(cohenKappa(['x', 'x'], ['x', 'x'])).toBeNull();
    expect(() => cohenKappa(['a'], ['a', 'b'])).toThrow(/1 labels against 2; expected pairs/);
  });
});

describe('conditionalMutualInformation', () => {
  it('is 0 when the choice only copies the context, and H(Y|Z) when it equals the label', () => {
    const z = ['s', 's', 's', 's', 'c', 'c', 'c', 'c'];
    const y = ['a', 'b', 'a', 'b', 'a', 'a', 'b', 'b'];
    expect(conditionalMutualInformation(z, y, z)).toBeCloseTo(0, 12);
    // Y is a fair coin within each context: 1 bit.
    expect(conditionalMutualInformation(y, y, z)).toBeCloseTo(1, 12);
  });
});
