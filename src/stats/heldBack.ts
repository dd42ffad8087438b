/**
 * When a test is given at all. A report gives a test only where its result can mean
 * something, and otherwise holds it back and says why:
 * - an exact test needs enough observations that the most extreme data of that size could
 *   reach p < SIGNIFICANCE (with fewer, every possible outcome "fails to differ from
 *   chance", and a printed p of 1 or 0.25 only looks like evidence);
 * - a normal or chi-square approximation needs its expected counts (MIN_EXPECTED each).
 */

/** The significance level the reports are read at. */
export const SIGNIFICANCE = 0.05;

/** The chi-square and normal approximations hold with at least this many expected per cell. */
export const MIN_EXPECTED = 5;

/**
 * The least n (from 1) at which a test whose smallest possible p with n observations is
 * `smallestP(n)` could fall below `SIGNIFICANCE`. `smallestP` must fall towards 0 as n grows.
 */
export function leastSampleForSignificance(smallestP: (n: number) => number): number {
  let n = 1;
  while (smallestP(n) >= SIGNIFICANCE) {
    n++;
    if (n > 1e6) throw new Error('leastSampleForSignificance: the smallest p never falls below the significance level');
  }
  return n;
}

/**
 * Non-zero paired differences the two-sided Wilcoxon signed-rank test needs: its smallest p
 * (every difference of one sign) is 2 / 2^n, below 0.05 from n = 6.
 */
export const SIGNED_RANK_MINIMUM = leastSampleForSignificance((n) => 2 ** (1 - n));

/**
 * Rows (each ranking every one of `conditions`) the Friedman test needs: perfect agreement,
 * every row ranking the same way, has p = k!^(1-n). With 3 conditions that is 3; with 2, 6.
 */
export function friedmanMinimum(conditions: number): number {
  if (conditions < 2) throw new Error(`friedmanMinimum: a test over ${conditions} conditions compares nothing`);
  let factorial = 1;
  for (let i = 2; i <= conditions; i++) factorial *= i;
  return leastSampleForSignificance((n) => factorial ** (1 - n));
}

/**
 * Observations an exact test of `categories` equally likely outcomes needs: the most
 * lopsided split (all in one category) has p = categories^(1-n).
 */
export function exactUniformMinimum(categories: number): number {
  return leastSampleForSignificance((n) => categories ** (1 - n));
}

/**
 * Why an exact test is held back, in the words every report uses, e.g. "needs at least 6
 * people who rated both teams differently, and there are 1: with fewer, no ratings could
 * differ from chance at p < 0.05".
 */
export function tooFewReason(needs: number, who: string, have: number, data: string): string {
  return `needs at least ${needs} ${who}, and there ${have === 1 ? 'is' : 'are'} ${have}: with fewer, no ${data} could differ from chance at p < ${SIGNIFICANCE}`;
}
