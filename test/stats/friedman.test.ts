import { describe, expect, it } from 'vitest';
import { friedmanTest } from '../../src/stats/friedman';
import { rankWithTies } from '../../src/stats/ranks';

// Hollander & Wolfe (1973), p. 140: rounding first base, three methods, 22 players
// (R's friedman.test example: chi-squared = 11.143, df = 2, p-value = 0.003805).
const ROUNDING_TIMES = [
  [5.4, 5.5, 5.55], [5.85, 5.7, 5.75], [5.2, 5.6, 5.5], [5.55, 5.5, 5.4], [5.9, 5.85, 5.7],
  [5.45, 5.55, 5.6], [5.4, 5.4, 5.35], [5.45, 5.5, 5.35], [5.25, 5.15, 5.0], [5.85, 5.8, 5.7],
  [5.25, 5.2, 5.1], [5.65, 5.55, 5.45], [5.6, 5.35, 5.45], [5.05, 5.0, 4.95], [5.5, 5.5, 5.4],
  [5.45, 5.55, 5.5], [5.55, 5.55, 5.35], [5.45, 5.5, 5.55], [5.5, 5.45, 5.25], [5.65, 5.6, 5.4],
  [5.7, 5.65, 5.55], [6.3, 6.3, 6.25],
];

describe('rankWithTies', () => {
  it('gives mid-ranks to ties and reports the tie groups', () => {
    expect(rankWithTies([10, 20, 20, 5, 20])).toEqual({ ranks: [2, 4, 4, 1, 4], ties: [3] });
    expect(rankWithTies([3, 1, 2])).toEqual({ ranks: [3, 1, 2], ties: [] });
  });
});

describe('friedmanTest', () => {
  it("reproduces Hollander & Wolfe's rounding-first-base example (11.143, p = 0.003805)", () => {
    const r = friedmanTest(ROUNDING_TIMES);
    expect(r.df).toBe(2);
    expect(r.n).toBe(22);
    expect(r.statistic).toBeCloseTo(11.142857, 5);
    expect(r.p).toBeCloseTo(0.003805041, 8);
    expect(r.kendallW).toBeCloseTo(11.142857 / 44, 5);
  });

  it('applies the tie correction to Likert-like ratings (SciPy: 10.64, p = 0.0048928)', () => {
    const ratings = [[2, 3, 4], [1, 3, 3], [2, 2, 4], [3, 3, 5], [1, 2, 3], [2, 4, 3], [3, 3, 3], [1, 2, 4]];
    const r = friedmanTest(ratings);
    expect(r.statistic).toBeCloseTo(10.64, 10);
    expect(r.p).toBeCloseTo(0.004892754, 8);
    // Treatment 3 is rated highest in most rows.
    expect(r.meanRanks[2]).toBeGreaterThan(r.meanRanks[0]!);
  });

  it('gives 0 and p = 1 without differences, and refuses bad designs', () => {
    expect(friedmanTest([[3, 3, 3], [2, 2, 2]])).toMatchObject({ statistic: 0, p: 1 });
    expect(() => friedmanTest([[1, 2, 3]])).toThrow(/2 subjects/);
    expect(() => friedmanTest([[1], [2]])).toThrow(/2 treatments/);
    expect(() => friedmanTest([[1, 2], [1, 2, 3]])).toThrow(/row 1/);
    expect(() => friedmanTest([[1, NaN], [1, 2]])).toThrow(/finite/);
  });

  it('a perfectly consistent ordering gives Kendall W = 1', () => {
    const r = friedmanTest([[1, 2, 3], [1, 2, 3], [1, 2, 3], [1, 2, 3]]);
    expect(r.kendallW).toBeCloseTo(1, 12);
    expect(r.statistic).toBeCloseTo(8, 12);
  });
});
