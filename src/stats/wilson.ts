/**
 * Wilson score interval for a binomial proportion.
 */
import { zCritical } from './distributions';
import { assertCount } from './validate';

/** A point estimate with a two-sided confidence interval. */
export interface ProportionInterval {
  /** Observed proportion successes / n. */
  estimate: number;
  lower: number;
  upper: number;
}

/**
 * Wilson score interval (Wilson 1927) for `successes` out of `n` trials:
 *
 *   (p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n)
 *
 * where z is the two-sided normal critical value for `confidence`. Unlike the
 * Wald interval it stays inside [0, 1] and behaves well near 0 and 1.
 *
 * @throws Error when n is 0 (no trials, so no proportion to estimate), when a
 *   count is negative or not an integer, or when successes > n.
 */
export function wilsonInterval(successes: number, n: number, confidence = 0.95): ProportionInterval {
  assertCount('successes', successes);
  assertCount('n', n);
  if (n === 0) {
    throw new Error('wilsonInterval: n is 0 (no trials), so there is no proportion to estimate');
  }
  if (successes > n) {
    throw new Error(`wilsonInterval: successes (${successes}) exceed trials n (${n})`);
  }
  const z = zCritical(confidence);
  const p = successes / n;
  const z2n = (z * z) / n;
  const denominator = 1 + z2n;
  const center = (p + z2n / 2) / denominator;
  const halfWidth = (z / denominator) * Math.sqrt((p * (1 - p)) / n + z2n / (4 * n));
  return {
    estimate: p,
    // At p̂ = 0 or 1 the bound is exactly 0 or 1; clamp rounding noise.
    lower: successes === 0 ? 0 : Math.max(0, center - halfWidth),
    upper: successes === n ? 1 : Math.min(1, center + halfWidth),
  };
}

/** The first side's share of the decisive games (wins, not draws) with its Wilson interval; null without any. */
export function decisiveShare(firstWins: number, secondWins: number, confidence = 0.95): ProportionInterval | null {
  const decisive = firstWins + secondWins;
  return decisive > 0 ? wilsonInterval(firstWins, decisive, confidence) : null;
}
