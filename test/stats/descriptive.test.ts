import { describe, expect, it } from 'vitest';
import { mean, p50p95, percentile, standardDeviation, standardError, summarize } from '../../src/stats/descriptive';
import { mulberry32 } from '../../src/stats/random';

describe('mean, standard deviation, standard error', () => {
  // Classic example: population SD 2, sample SD √(32/7).
  const values = [2, 4, 4, 4, 5, 5, 7, 9];

  it('matches hand-computed values', () => {
    expect(mean(values)).toBe(5);
    expect(standardDeviation(values)).toBeCloseTo(Math.sqrt(32 / 7), 14);
    expect(standardError(values)).toBeCloseTo(Math.sqrt(32 / 7) / Math.sqrt(8), 14);
    expect(summarize(values)).toEqual({
      n: 8,
      mean: 5,
      sd: standardDeviation(values),
      se: standardError(values),
    });
  });

  it('is stable for large offsets', () => {
    expect(standardDeviation(values.map((v) => v + 1e9))).toBeCloseTo(Math.sqrt(32 / 7), 6);
  });

  it('handles and rejects degenerate samples', () => {
    const one = summarize([3]);
    expect(one.mean).toBe(3);
    expect(Number.isNaN(one.sd) && Number.isNaN(one.se)).toBe(true);
    expect(() => standardDeviation([3])).toThrow(/at least 2/);
    expect(() => mean([])).toThrow(/no values/);
    expect(() => mean([1, NaN])).toThrow(/values\[1\]/);
  });
});

describe('percentile', () => {
  it('interpolates linearly like R type 7 / NumPy', () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2.5);
    expect(percentile([4, 1, 3, 2], 0)).toBe(1);
    expect(percentile([4, 1, 3, 2], 100)).toBe(4);
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    // NumPy: np.percentile(range(1, 101), 95) = 95.05.
    expect(percentile(hundred, 95)).toBeCloseTo(95.05, 10);
    expect(p50p95(hundred)).toEqual({ p50: 50.5, p95: percentile(hundred, 95) });
    expect(percentile([7], 95)).toBe(7);
  });

  it("'nearest-rank' gives the ⌈n·p/100⌉-th value (latency reports), 'nearest' the value nearest the linear rank (frame times)", () => {
    const ten = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5];
    expect(percentile(ten, 95, 'nearest-rank')).toBe(10);
    expect(percentile(ten, 50, 'nearest-rank')).toBe(5);
    expect(percentile(ten, 0, 'nearest-rank')).toBe(1);
    expect(percentile(ten, 50, 'nearest')).toBe(6); // rank 4.5 rounds up
    expect(percentile(ten, 95, 'nearest')).toBe(10);
    expect(percentile([7], 95, 'nearest-rank')).toBe(7);
    expect(percentile([7], 95, 'nearest')).toBe(7);
    // The same figures as the counters' and the frame statistics' own formulas gave before.
    const random = mulberry32(3);
    for (let trial = 0; trial < 200; trial++) {
      const values = Array.from({ length: 1 + Math.floor(random() * 40) }, () => Math.round(random() * 1000) / 10);
      const sorted = [...values].sort((a, b) => a - b);
      const n = sorted.length;
      for (const p of [0, 50, 95, 100]) {
        expect(percentile(values, p, 'nearest-rank')).toBe(sorted[Math.min(n, Math.max(1, Math.ceil((p / 100) * n))) - 1]);
        expect(percentile(values, p, 'nearest')).toBe(sorted[Math.min(n - 1, Math.floor((p / 100) * (n - 1) + 0.5))]);
      }
    }
  });

  it('does not reorder its input and rejects bad p', () => {
    const input = [3, 1, 2];
    percentile(input, 50);
    expect(input).toEqual([3, 1, 2]);
    expect(() => percentile(input, 101)).toThrow(/\[0, 100\]/);
    expect(() => percentile([], 50)).toThrow(/no values/);
  });
});
