import { describe, expect, it } from 'vitest';
import {
  conditionalTransitionEntropy,
  countTransitions,
  parseTransition,
  shannonEntropy,
  transitionEntropy,
} from '../../src/stats/entropy';

describe('shannonEntropy', () => {
  it('is 3 bits for a uniform distribution over 8 outcomes and 0 for one outcome', () => {
    expect(shannonEntropy([5, 5, 5, 5, 5, 5, 5, 5])).toBeCloseTo(3, 14);
    expect(shannonEntropy([42])).toBe(0);
    expect(shannonEntropy([0, 7, 0])).toBe(0);
  });

  it('matches hand-computed values', () => {
    expect(shannonEntropy([1, 1])).toBeCloseTo(1, 14);
    // −(1/4)log2(1/4) − (3/4)log2(3/4) = 0.5 + 0.311278 = 0.811278.
    expect(shannonEntropy([1, 3])).toBeCloseTo(0.8112781244591328, 14);
    expect(shannonEntropy({ rock: 1, paper: 1, scissors: 2 })).toBeCloseTo(1.5, 14);
    expect(shannonEntropy(new Map([['x', 3], ['y', 0]]))).toBe(0);
  });

  it('rejects negative, fractional or all-zero counts', () => {
    expect(() => shannonEntropy([3, -1])).toThrow(/count for "1" must not be negative/);
    expect(() => shannonEntropy([1.5, 2])).toThrow(/integer/);
    expect(() => shannonEntropy([0, 0])).toThrow(/all counts are 0/);
    expect(() => shannonEntropy([])).toThrow(/all counts are 0/);
  });
});

describe('transition entropy', () => {
  it('counts consecutive transitions', () => {
    const counts = countTransitions(['hold', 'push', 'hold', 'push', 'retreat']);
    expect([...counts.entries()]).toEqual([
      ['hold->push', 2],
      ['push->hold', 1],
      ['push->retreat', 1],
    ]);
    expect(countTransitions(['only']).size).toBe(0);
  });

  it('gives the entropy of the joint transition distribution', () => {
    expect(transitionEntropy({ 'a->b': 4 })).toBe(0);
    expect(transitionEntropy({ 'a->b': 1, 'b->c': 1, 'c->a': 1, 'a->c': 1 })).toBeCloseTo(2, 14);
    // 2, 1, 1 of 4: 1.5 bits.
    expect(transitionEntropy(countTransitions(['hold', 'push', 'hold', 'push', 'retreat']))).toBeCloseTo(1.5, 14);
  });

  it('gives H(to | from) = H(from, to) − H(from)', () => {
    // A strict alternation is fully predictable from the current skill.
    expect(conditionalTransitionEntropy(countTransitions(['a', 'b', 'a', 'b', 'a']))).toBe(0);
    // From a: b or c equally (1 bit); from b: always a (0 bits); P(from=a) = 1/2 → 0.5 bits.
    expect(conditionalTransitionEntropy({ 'a->b': 1, 'a->c': 1, 'b->a': 2 })).toBeCloseTo(0.5, 14);
  });

  it('rejects malformed keys and counts', () => {
    expect(() => transitionEntropy({ ab: 1 })).toThrow(/from->to/);
    expect(() => transitionEntropy({ 'a->b->c': 1 })).toThrow(/from->to/);
    expect(() => transitionEntropy({ 'a->b': -2 })).toThrow(/must not be negative/);
    expect(() => parseTransition('->b')).toThrow(/from->to/);
    expect(parseTransition('hold->push')).toEqual({ from: 'hold', to: 'push' });
    expect(() => countTransitions(['a->b', 'c'])).toThrow(/must not contain/);
  });
});

describe('jensenShannonDivergence', () => {
  it('is 0 for equal distributions, 1 bit for disjoint ones, symmetric, and normalises its weights', async () => {
    const { jensenShannonDivergence } = await import('../../src/stats');
    expect(jensenShannonDivergence([1, 2, 3], [2, 4, 6])).toBeCloseTo(0, 12);
    expect(jensenShannonDivergence([1, 0], [0, 1])).toBeCloseTo(1, 12);
    // p = (1/2, 1/2), q = (1, 0): m = (3/4, 1/4); H(m) = 0.811278, H(p) = 1, H(q) = 0.
    expect(jensenShannonDivergence([1, 1], [1, 0])).toBeCloseTo(0.811278 - 0.5, 5);
    expect(jensenShannonDivergence([1, 0], [1, 1])).toBeCloseTo(jensenShannonDivergence([1, 1], [1, 0]), 12);
    expect(() => jensenShannonDivergence([1], [1, 2])).toThrow(/1 weights against 2/);
    expect(() => jensenShannonDivergence([0, 0], [1, 2])).toThrow(/sums to 0/);
  });
});
