/**
 * Hypothesis tests for binomial proportions.
 */
import { twoSidedPValue } from './distributions';
import { lnGamma } from './gamma';
import { assertCount, assertOpenUnit } from './validate';

/** Result of a z-test: the statistic and its two-sided p-value. */
export interface ZTestResult {
  z: number;
  /** Two-sided p-value P(|Z| >= |z|). */
  p: number;
}

function checkSuccesses(label: string, successes: number, n: number): void {
  assertCount(`${label} successes`, successes);
  assertCount(`${label} n`, n);
  if (n === 0) throw new Error(`${label}: n is 0 (no trials)`);
  if (successes > n) {
    throw new Error(`${label}: successes (${successes}) exceed trials n (${n})`);
  }
}

/**
 * One-sample z-test of H0: π = p0, two-sided, using the null standard error:
 * z = (p̂ − p0) / √(p0(1 − p0)/n). Normal approximation; prefer
 * {@link binomialTestExact} for small n.
 */
export function oneProportionZTest(
  successes: number,
  n: number,
  p0 = 0.5,
): ZTestResult & { estimate: number } {
  checkSuccesses('oneProportionZTest', successes, n);
  assertOpenUnit('p0', p0);
  const estimate = successes / n;
  const z = (estimate - p0) / Math.sqrt((p0 * (1 - p0)) / n);
  return { z, p: twoSidedPValue(z), estimate };
}

/**
 * Two-proportion z-test of H0: π1 = π2, two-sided, with the pooled standard
 * error √(p̄(1 − p̄)(1/n1 + 1/n2)), p̄ = (x1 + x2)/(n1 + n2).
 * `z` is positive when the first proportion is larger.
 *
 * @throws Error when the pooled proportion is 0 or 1 (every trial had the same
 *   outcome), where the test statistic is undefined.
 */
export function twoProportionZTest(
  successes1: number,
  n1: number,
  successes2: number,
  n2: number,
): ZTestResult & { p1: number; p2: number; difference: number } {
  checkSuccesses('twoProportionZTest sample 1', successes1, n1);
  checkSuccesses('twoProportionZTest sample 2', successes2, n2);
  const p1 = successes1 / n1;
  const p2 = successes2 / n2;
  const pooled = (successes1 + successes2) / (n1 + n2);
  if (pooled === 0 || pooled === 1) {
    throw new Error(
      'twoProportionZTest: every trial in both samples had the same outcome, so the pooled variance is 0 and z is undefined',
    );
  }
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  const z = (p1 - p2) / se;
  return { z, p: twoSidedPValue(z), p1, p2, difference: p1 - p2 };
}

/** Relative tolerance when comparing probabilities for "as or less likely" (as R's binom.test). */
const RELATIVE_TOLERANCE = 1 + 1e-7;

/**
 * Exact two-sided binomial test of H0: π = p0. The p-value is the total
 * probability, under H0, of every outcome k in 0..n with P(k) <= P(observed)
 * (the "minimum likelihood" method used by R's `binom.test`, with a 1e-7
 * relative tolerance for ties). Probabilities are formed in log space from
 * ln Γ, so n up to 1e5 and beyond is fine.
 */
export function binomialTestExact(
  successes: number,
  n: number,
  p0 = 0.5,
): { p: number; estimate: number } {
  checkSuccesses('binomialTestExact', successes, n);
  assertOpenUnit('p0', p0);
  const logP = Math.log(p0);
  const logQ = Math.log1p(-p0);
  const lnNFact = lnGamma(n + 1);
  const logPmf = (k: number): number =>
    lnNFact - lnGamma(k + 1) - lnGamma(n - k + 1) + k * logP + (n - k) * logQ;

  const threshold = logPmf(successes) + Math.log(RELATIVE_TOLERANCE);
  let total = 0;
  for (let k = 0; k <= n; k++) {
    const lp = logPmf(k);
    if (lp <= threshold) total += Math.exp(lp);
  }
  return { p: Math.min(1, total), estimate: successes / n };
}
