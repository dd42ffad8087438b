import { describe, expect, it } from 'vitest';
import { binomialTestExact, oneProportionZTest, twoProportionZTest } from '../../src/stats/proportions';

/** Independent brute-force two-sided binomial p-value for small n (pmf by recurrence). */
function bruteBinomialP(x: number, n: number, p0: number): number {
  const pmf: number[] = [Math.pow(1 - p0, n)];
  for (let k = 1; k <= n; k++) pmf.push((pmf[k - 1]! * (n - k + 1) * p0) / (k * (1 - p0)));
  const observed = pmf[x]!;
  return pmf.filter((q) => q <= observed * (1 + 1e-7)).reduce((s, q) => s + q, 0);
}

describe('oneProportionZTest', () => {
  it('reproduces the reference study: 515 of 979 vs 50% gives z ≈ 1.63, p ≈ 0.103', () => {
    const { z, p, estimate } = oneProportionZTest(515, 979, 0.5);
    // By hand: (515/979 − 0.5) / √(0.25/979) = 0.026047 / 0.015980 = 1.630.
    expect(Math.abs(z - 1.63)).toBeLessThan(0.005);
    expect(Math.abs(p - 0.103)).toBeLessThan(0.002);
    expect(estimate).toBeCloseTo(515 / 979, 15);
  });

  it('is symmetric in the direction of the difference', () => {
    const up = oneProportionZTest(60, 100, 0.5);
    const down = oneProportionZTest(40, 100, 0.5);
    expect(up.z).toBeCloseTo(2, 12);
    expect(down.z).toBeCloseTo(-2, 12);
    expect(up.p).toBeCloseTo(down.p, 15);
  });

  it('rejects bad input', () => {
    expect(() => oneProportionZTest(1, 0)).toThrow(/n is 0/);
    expect(() => oneProportionZTest(-1, 10)).toThrow(/negative/);
    expect(() => oneProportionZTest(5, 10, 1)).toThrow(/p0/);
  });
});

describe('twoProportionZTest', () => {
  it('uses the pooled standard error (z² equals the 2×2 Pearson chi-square)', () => {
    // 45/100 vs 30/100: 2×2 table [[45,55],[30,70]], expected [[37.5,62.5],[37.5,62.5]],
    // Pearson χ² = 2·(7.5²/37.5 + 7.5²/62.5) = 4.8 exactly.
    const r = twoProportionZTest(45, 100, 30, 100);
    expect(r.z * r.z).toBeCloseTo(4.8, 10);
    expect(r.z).toBeGreaterThan(0);
    expect(r.difference).toBeCloseTo(0.15, 12);
    expect(Math.abs(r.p - 0.02846)).toBeLessThan(1e-5);
    expect(twoProportionZTest(30, 100, 45, 100).z).toBeCloseTo(-r.z, 12);
  });

  it('throws when every trial had the same outcome', () => {
    expect(() => twoProportionZTest(0, 10, 0, 20)).toThrow(/same outcome/);
    expect(() => twoProportionZTest(1, 0, 0, 20)).toThrow(/n is 0/);
  });
});

describe('binomialTestExact', () => {
  it('matches exact textbook values', () => {
    // 7 of 10: 2·(1+10+45+120)/1024 = 0.34375; 9 of 10: 2·(1+10)/1024 = 0.021484375.
    expect(binomialTestExact(7, 10).p).toBeCloseTo(0.34375, 12);
    expect(binomialTestExact(9, 10).p).toBeCloseTo(0.021484375, 12);
    expect(binomialTestExact(3, 10).p).toBeCloseTo(0.34375, 12);
    expect(binomialTestExact(10, 10).p).toBeCloseTo(2 / 1024, 14);
    expect(binomialTestExact(5, 10).p).toBe(1);
  });

  it('agrees with brute force for asymmetric nulls', () => {
    for (const [x, n, p0] of [
      [2, 20, 0.3],
      [11, 20, 0.3],
      [0, 15, 0.1],
      [40, 50, 0.65],
      [1, 7, 0.5],
    ] as const) {
      expect(Math.abs(binomialTestExact(x, n, p0).p - bruteBinomialP(x, n, p0))).toBeLessThan(1e-12);
    }
  });

  it('handles n = 100000 and agrees with the continuity-corrected normal approximation', () => {
    const { p } = binomialTestExact(50500, 100000);
    // Normal approximation with continuity correction: z = 499.5/√25000 = 3.1590, p ≈ 0.001583.
    const zcc = 499.5 / Math.sqrt(25000);
    expect(zcc).toBeCloseTo(3.159, 3);
    expect(Math.abs(p - 0.001583)).toBeLessThan(1e-5);
    expect(binomialTestExact(50000, 100000).p).toBeCloseTo(1, 9);
  });

  it('is more conservative than the z-test on the reference study', () => {
    const exact = binomialTestExact(515, 979).p;
    expect(exact).toBeGreaterThan(oneProportionZTest(515, 979).p);
    expect(exact).toBeLessThan(0.12);
  });

  it('rejects bad input', () => {
    expect(() => binomialTestExact(11, 10)).toThrow(/exceed/);
    expect(() => binomialTestExact(-2, 10)).toThrow(/negative/);
    expect(() => binomialTestExact(0, 0)).toThrow(/n is 0/);
  });
});
