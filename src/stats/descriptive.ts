/**
 * Descriptive statistics: mean, standard deviation, standard error, percentiles.
 */
import { assertFinite } from './validate';

function checkValues(label: string, values: readonly number[]): void {
  if (values.length === 0) throw new Error(`${label}: no values given`);
  values.forEach((v, i) => assertFinite(`${label}: values[${i}]`, v));
}

/** Arithmetic mean. @throws Error for an empty list or non-finite values. */
export function mean(values: readonly number[]): number {
  checkValues('mean', values);
  return values.reduce((s, v) => s + v, 0) / values.length;
}

/**
 * Sample standard deviation with Bessel's correction (divisor n − 1),
 * computed in two passes for numerical stability.
 * @throws Error when fewer than 2 values are given.
 */
export function standardDeviation(values: readonly number[]): number {
  checkValues('standardDeviation', values);
  if (values.length < 2) throw new Error('standardDeviation: need at least 2 values');
  const m = mean(values);
  const ss = values.reduce((s, v) => s + (v - m) * (v - m), 0);
  return Math.sqrt(ss / (values.length - 1));
}

/** Standard error of the mean, s / √n. @throws Error when fewer than 2 values are given. */
export function standardError(values: readonly number[]): number {
  return standardDeviation(values) / Math.sqrt(values.length);
}

/** Summary of a sample. `sd` and `se` are NaN when n = 1 (undefined for one value). */
export interface Summary {
  n: number;
  mean: number;
  sd: number;
  se: number;
}

/** Mean, sample standard deviation and standard error of the mean in one call. */
export function summarize(values: readonly number[]): Summary {
  checkValues('summarize', values);
  const m = mean(values);
  if (values.length < 2) return { n: values.length, mean: m, sd: NaN, se: NaN };
  const sd = standardDeviation(values);
  return { n: values.length, mean: m, sd, se: sd / Math.sqrt(values.length) };
}

/**
 * How a percentile is read off the sorted values (names after NumPy's `method`):
 * - 'linear': interpolate between the order statistics at rank (n − 1)·p/100 (Hyndman &
 *   Fan type 7, the default of R's `quantile` and NumPy's `percentile`): for estimates.
 * - 'nearest-rank': the ⌈n·p/100⌉-th smallest value, at least the first (type 1, NumPy's
 *   'inverted_cdf'): always a value that occurred, and at least p% of the values are at or
 *   below it ("95% of calls took at most this"): for latency and size reports.
 * - 'nearest': the order statistic nearest to rank (n − 1)·p/100, halves rounded up (NumPy's
 *   'nearest' rounds them to even): a value that occurred, close to the 'linear' estimate.
 */
export type PercentileMethod = 'linear' | 'nearest-rank' | 'nearest';

/** The p-th percentile (p in [0, 100]); see PercentileMethod (default 'linear'). */
export function percentile(values: readonly number[], p: number, method: PercentileMethod = 'linear'): number {
  checkValues('percentile', values);
  if (!(p >= 0 && p <= 100)) throw new Error(`percentile: p must lie in [0, 100], got ${String(p)}`);
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  if (method === 'nearest-rank') return sorted[Math.min(n, Math.max(1, Math.ceil((p / 100) * n))) - 1]!;
  if (method === 'nearest') return sorted[Math.min(n - 1, Math.floor((p / 100) * (n - 1) + 0.5))]!;
  const rank = ((n - 1) * p) / 100;
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}

/** Median and 95th percentile (type 7 interpolation), e.g. for latency reports. */
export function p50p95(values: readonly number[]): { p50: number; p95: number } {
  return { p50: percentile(values, 50), p95: percentile(values, 95) };
}
