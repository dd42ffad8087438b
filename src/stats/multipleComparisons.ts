/**
 * Adjusting p-values for multiple comparisons (e.g. pairwise tests after an omnibus test).
 */

function checkPs(label: string, ps: readonly number[]): void {
  ps.forEach((p, i) => {
    if (!(p >= 0 && p <= 1)) throw new Error(`${label}: p[${i}] must lie in [0, 1], got ${String(p)}`);
  });
}

/**
 * Holm's step-down adjustment (Holm 1979), which controls the family-wise error rate like
 * Bonferroni's but is uniformly more powerful: with the p-values sorted ascending,
 * p̃_(i) = max_{j ≤ i} min(1, (m − j + 1) p_(j)). Returns adjusted values in input order
 * (as R's `p.adjust(p, "holm")`).
 */
export function holmAdjust(ps: readonly number[]): number[] {
  checkPs('holmAdjust', ps);
  const m = ps.length;
  const order = ps.map((_, i) => i).sort((a, b) => ps[a]! - ps[b]!);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach((index, j) => {
    running = Math.max(running, Math.min(1, (m - j) * ps[index]!));
    adjusted[index] = running;
  });
  return adjusted;
}

/** Bonferroni's adjustment: min(1, m p). */
export function bonferroniAdjust(ps: readonly number[]): number[] {
  checkPs('bonferroniAdjust', ps);
  return ps.map((p) => Math.min(1, ps.length * p));
}
