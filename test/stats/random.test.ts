import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/stats/random';

describe('mulberry32', () => {
  it('is deterministic per seed and differs between seeds', () => {
    const a = mulberry32(123);
    const b = mulberry32(123);
    const c = mulberry32(124);
    const seqA = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(seqA);
    expect(Array.from({ length: 5 }, () => c())).not.toEqual(seqA);
  });

  it('produces uniform values in [0, 1)', () => {
    const next = mulberry32(2024);
    const n = 100_000;
    const bins = new Array<number>(10).fill(0);
    let sum = 0;
    let outOfRange = 0;
    for (let i = 0; i < n; i++) {
      const u = next();
      if (!(u >= 0 && u < 1)) outOfRange++;
      sum += u;
      bins[Math.floor(u * 10)]!++;
    }
    expect(outOfRange).toBe(0);
    // Mean within 5 standard errors (SE = √(1/12)/√n ≈ 0.0009).
    expect(Math.abs(sum / n - 0.5)).toBeLessThan(0.0046);
    // Pearson χ² over 10 bins, df 9: 99.99th percentile is about 33.7.
    const chi2 = bins.reduce((s, o) => s + (o - n / 10) ** 2 / (n / 10), 0);
    expect(chi2).toBeLessThan(33.7);
  });

  it('rejects non-integer seeds', () => {
    expect(() => mulberry32(0.5)).toThrow(/integer/);
  });
});
