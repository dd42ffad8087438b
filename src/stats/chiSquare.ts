/**
 * Goodness-of-fit tests for categorical counts: Pearson's chi-square and the
 * exact multinomial test.
 */
import { chiSquareSurvival } from './distributions';
import { assertCounts } from './validate';

/** Result of Pearson's chi-square goodness-of-fit test. */
export interface ChiSquareResult {
  /** Pearson statistic Σ (O − E)² / E. */
  statistic: number;
  /** Degrees of freedom k − 1. */
  df: number;
  /** Upper-tail p-value from the χ²(df) distribution. */
  p: number;
  /** Cramér's V for goodness of fit, √(χ² / (n(k − 1))). */
  cramersV: number;
  /** Expected counts under H0. */
  expected: number[];
  /** Total count n. */
  n: number;
}

/**
 * Validates the observed counts and the null proportions (uniform when
 * omitted) and returns the proportions normalized to sum exactly to 1.
 */
function nullProportions(
  label: string,
  observed: readonly number[],
  expectedProportions?: readonly number[],
): number[] {
  if (observed.length < 2) {
    throw new Error(`${label}: need at least 2 categories, got ${observed.length}`);
  }
  assertCounts('observed', observed);
  const n = observed.reduce((s, v) => s + v, 0);
  if (n === 0) throw new Error(`${label}: all observed counts are 0 (n = 0)`);
  const k = observed.length;
  if (expectedProportions === undefined) return new Array<number>(k).fill(1 / k);
  if (expectedProportions.length !== k) {
    throw new Error(
      `${label}: ${expectedProportions.length} expected proportions for ${k} observed categories`,
    );
  }
  expectedProportions.forEach((v, i) => {
    if (!(v > 0) || !Number.isFinite(v)) {
      throw new Error(`${label}: expectedProportions[${i}] must be a finite number > 0, got ${String(v)}`);
    }
  });
  const sum = expectedProportions.reduce((s, v) => s + v, 0);
  if (Math.abs(sum - 1) > 1e-6) {
    throw new Error(`${label}: expected proportions must sum to 1, they sum to ${sum}`);
  }
  return expectedProportions.map((v) => v / sum);
}

/**
 * Pearson chi-square goodness-of-fit test of observed counts against given
 * expected proportions (uniform when omitted). The p-value uses the χ²(k − 1)
 * survival function, an approximation that is unreliable when expected counts
 * are small (a common rule: all >= 5); use {@link exactMultinomialTest} then.
 */
export function chiSquareGoodnessOfFit(
  observed: readonly number[],
  expectedProportions?: readonly number[],
): ChiSquareResult {
  const proportions = nullProportions('chiSquareGoodnessOfFit', observed, expectedProportions);
  const n = observed.reduce((s, v) => s + v, 0);
  const k = observed.length;
  const expected = proportions.map((q) => q * n);
  let statistic = 0;
  for (let i = 0; i < k; i++) {
    const diff = observed[i]! - expected[i]!;
    statistic += (diff * diff) / expected[i]!;
  }
  const df = k - 1;
  return {
    statistic,
    df,
    p: chiSquareSurvival(statistic, df),
    cramersV: Math.sqrt(statistic / (n * df)),
    expected,
    n,
  };
}

/** Upper bound on the outcomes enumerated by the exact multinomial test. */
export const EXACT_MULTINOMIAL_MAX_OUTCOMES = 5_000_000;

/** Number of ways to split n items into k ordered categories, C(n + k − 1, k − 1). */
function compositionCount(n: number, k: number): number {
  let count = 1;
  for (let i = 1; i < k; i++) count = (count * (n + i)) / i;
  return Math.round(count);
}

/**
 * Exact multinomial goodness-of-fit test. Enumerates every composition of n
 * into k categories and sums the null probability of every outcome no more
 * likely than the observed one (the probability-ordering method; ties within
 * a relative 1e-7 count as "as likely"). The null is uniform unless
 * `expectedProportions` is given. Use it where small expected counts make the
 * chi-square approximation unreliable.
 *
 * @throws Error when the number of outcomes C(n + k − 1, k − 1) exceeds
 *   {@link EXACT_MULTINOMIAL_MAX_OUTCOMES} (n = 60 with k = 4 is about 4e4).
 */
export function exactMultinomialTest(
  observed: readonly number[],
  expectedProportions?: readonly number[],
): { p: number; n: number; outcomes: number } {
  const proportions = nullProportions('exactMultinomialTest', observed, expectedProportions);
  const n = observed.reduce((s, v) => s + v, 0);
  const k = observed.length;
  const outcomes = compositionCount(n, k);
  if (outcomes > EXACT_MULTINOMIAL_MAX_OUTCOMES) {
    throw new Error(
      `exactMultinomialTest: ${outcomes} outcomes for n=${n}, k=${k} exceeds the limit of ${EXACT_MULTINOMIAL_MAX_OUTCOMES}; use chiSquareGoodnessOfFit`,
    );
  }
  // ln(i!) for i = 0..n by exact cumulative sums.
  const lnFact = new Array<number>(n + 1);
  lnFact[0] = 0;
  for (let i = 1; i <= n; i++) lnFact[i] = lnFact[i - 1]! + Math.log(i);
  const logProportions = proportions.map((q) => Math.log(q));
  const logProbability = (counts: readonly number[]): number => {
    let lp = lnFact[n]!;
    for (let i = 0; i < k; i++) lp += counts[i]! * logProportions[i]! - lnFact[counts[i]!]!;
    return lp;
  };

  const threshold = logProbability(observed) + Math.log(1 + 1e-7);
  const counts = new Array<number>(k).fill(0);
  let total = 0;
  // Depth-first enumeration: fill categories 0..k−2, the last takes the remainder.
  const visit = (index: number, remaining: number): void => {
    if (index === k - 1) {
      counts[index] = remaining;
      const lp = logProbability(counts);
      if (lp <= threshold) total += Math.exp(lp);
      return;
    }
    for (let c = 0; c <= remaining; c++) {
      counts[index] = c;
      visit(index + 1, remaining - c);
    }
  };
  visit(0, n);
  return { p: Math.min(1, total), n, outcomes };
}
