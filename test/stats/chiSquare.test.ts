import { describe, expect, it } from 'vitest';
import { chiSquareGoodnessOfFit, exactMultinomialTest } from '../../src/stats/chiSquare';
import { binomialTestExact } from '../../src/stats/proportions';

/** Independent brute force: exact multinomial p against uniform for 3 categories. */
function bruteExactUniform3(observed: [number, number, number]): number {
  const n = observed[0] + observed[1] + observed[2];
  const factorial = (m: number): number => (m <= 1 ? 1 : m * factorial(m - 1));
  const prob = (a: number, b: number, c: number): number =>
    factorial(n) / (factorial(a) * factorial(b) * factorial(c)) / Math.pow(3, n);
  const observedProb = prob(...observed);
  let total = 0;
  for (let a = 0; a <= n; a++) {
    for (let b = 0; b <= n; b++) {
      for (let c = 0; c <= n; c++) {
        if (a + b + c !== n) continue;
        const q = prob(a, b, c);
        if (q <= observedProb * (1 + 1e-9)) total += q;
      }
    }
  }
  return total;
}

describe('chiSquareGoodnessOfFit', () => {
  it('forced-choice counts 9/5/1 vs uniform: χ² = 6.4, df 2, p ≈ 0.0408, V ≈ 0.462', () => {
    const r = chiSquareGoodnessOfFit([9, 5, 1]);
    // Expected 5 each: (16 + 0 + 16)/5 = 6.4.
    expect(r.statistic).toBeCloseTo(6.4, 12);
    expect(r.df).toBe(2);
    expect(r.expected).toEqual([5, 5, 5]);
    // For df 2 the survival function is exactly e^(−χ²/2) = e^(−3.2) = 0.0407622.
    expect(Math.abs(r.p - Math.exp(-3.2))).toBeLessThan(1e-12);
    expect(Math.abs(r.p - 0.0408)).toBeLessThan(1e-4);
    // The study reported p = 0.027; that does not follow from these counts.
    expect(Math.abs(r.p - 0.027)).toBeGreaterThan(0.01);
    expect(Math.abs(r.cramersV - Math.sqrt(6.4 / 30))).toBeLessThan(1e-12);
    expect(Math.abs(r.cramersV - 0.462)).toBeLessThan(5e-4);
  });

  it("reproduces Mendel's pea counts against 9:3:3:1 (χ² ≈ 0.470, p ≈ 0.925)", () => {
    const r = chiSquareGoodnessOfFit([315, 108, 101, 32], [9 / 16, 3 / 16, 3 / 16, 1 / 16]);
    expect(r.df).toBe(3);
    expect(Math.abs(r.statistic - 0.470024)).toBeLessThan(1e-6);
    expect(Math.abs(r.p - 0.9254)).toBeLessThan(1e-4);
  });

  it('gives statistic 0 and p = 1 for a perfect fit', () => {
    const r = chiSquareGoodnessOfFit([10, 10, 10, 10]);
    expect(r.statistic).toBe(0);
    expect(r.p).toBe(1);
    expect(r.cramersV).toBe(0);
  });

  it('rejects bad input with clear messages', () => {
    expect(() => chiSquareGoodnessOfFit([3, -1, 2])).toThrow(/observed\[1\] must not be negative/);
    expect(() => chiSquareGoodnessOfFit([7])).toThrow(/at least 2 categories/);
    expect(() => chiSquareGoodnessOfFit([0, 0, 0])).toThrow(/n = 0/);
    expect(() => chiSquareGoodnessOfFit([1, 2], [0.5, 0.3, 0.2])).toThrow(/3 expected proportions for 2/);
    expect(() => chiSquareGoodnessOfFit([1, 2], [0.5, 0.6])).toThrow(/sum to 1/);
    expect(() => chiSquareGoodnessOfFit([1, 2], [1, 0])).toThrow(/> 0/);
  });
});

describe('exactMultinomialTest', () => {
  it('9/5/1 vs uniform agrees with an independent brute-force triple loop', () => {
    const brute = bruteExactUniform3([9, 5, 1]);
    const r = exactMultinomialTest([9, 5, 1]);
    expect(Math.abs(r.p - brute)).toBeLessThan(1e-12);
    expect(r.outcomes).toBe(136); // C(17, 2)
    expect(Math.abs(r.p - 0.04285)).toBeLessThan(1e-5);
  });

  it('agrees with brute force on other small tables', () => {
    for (const obs of [
      [4, 4, 4],
      [12, 0, 0],
      [6, 2, 2],
      [0, 1, 9],
    ] as [number, number, number][]) {
      expect(Math.abs(exactMultinomialTest(obs).p - bruteExactUniform3(obs))).toBeLessThan(1e-12);
    }
  });

  it('reduces to the exact binomial test for two categories', () => {
    expect(exactMultinomialTest([7, 3]).p).toBeCloseTo(binomialTestExact(7, 10).p, 12);
    expect(exactMultinomialTest([2, 18], [0.3, 0.7]).p).toBeCloseTo(binomialTestExact(2, 20, 0.3).p, 12);
  });

  it('handles n = 60 with k = 4', () => {
    const balanced = exactMultinomialTest([15, 15, 15, 15]);
    expect(balanced.outcomes).toBe(39711); // C(63, 3)
    expect(balanced.p).toBeCloseTo(1, 9);
    const skewed = exactMultinomialTest([30, 15, 10, 5]);
    expect(skewed.p).toBeGreaterThan(0);
    expect(skewed.p).toBeLessThan(0.001);
  });

  it('refuses tables too large to enumerate', () => {
    expect(() => exactMultinomialTest([100, 100, 100, 100, 100, 100])).toThrow(/exceeds the limit/);
  });
});
