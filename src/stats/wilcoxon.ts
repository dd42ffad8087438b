/**
 * The Wilcoxon signed-rank test for paired samples (or one sample against 0).
 */
import { normalCdf, normalSurvival } from './distributions';
import { rankWithTies, tieSum } from './ranks';
import { assertFinite } from './validate';

export type Alternative = 'two-sided' | 'greater' | 'less';

export interface WilcoxonOptions {
  /** 'greater': x tends to exceed y. Default 'two-sided'. */
  alternative?: Alternative;
  /** Continuity correction in the normal approximation (default true, as R). */
  correction?: boolean;
  /**
   * Exact null distribution (true), the normal approximation (false), or by default
   * exact when there are fewer than 50 non-zero differences and no ties among them.
   */
  exact?: boolean;
}

export interface WilcoxonResult {
  /** V: the sum of the ranks of the positive differences (R's statistic). */
  statistic: number;
  /** Non-zero differences (zeros are dropped, as Wilcoxon proposed and R does). */
  n: number;
  /** Differences equal to 0, dropped. */
  zeros: number;
  p: number;
  method: 'exact' | 'normal';
  /** The standardised statistic of the normal approximation (null for the exact test). */
  z: number | null;
  /**
   * Matched-pairs rank-biserial correlation (Σ positive ranks − Σ negative ranks) / Σ ranks,
   * in [−1, 1]; 0 when there are no non-zero differences.
   */
  rankBiserial: number;
}

/** Probabilities of V = 0..n(n+1)/2 under H0 for n untied non-zero differences. */
function signedRankDistribution(n: number): number[] {
  const max = (n * (n + 1)) / 2;
  let counts = new Array<number>(max + 1).fill(0);
  counts[0] = 1;
  for (let r = 1; r <= n; r++) {
    const next = counts.slice();
    for (let s = r; s <= max; s++) next[s]! += counts[s - r]!;
    counts = next;
  }
  const total = Math.pow(2, n);
  return counts.map((c) => c / total);
}

/**
 * Wilcoxon signed-rank test of the paired differences x − y (or of x against 0 when y is
 * omitted). Zero differences are dropped; the rest are ranked by absolute value with
 * mid-ranks for ties. The exact test enumerates the null distribution of V; the normal
 * approximation uses the tie-corrected variance n(n+1)(2n+1)/24 − Σ(t³ − t)/48 and, by
 * default, a continuity correction of 0.5 (R's `wilcox.test(x, y, paired = TRUE)`).
 *
 * @throws Error for samples of different lengths or non-finite values.
 */
export function wilcoxonSignedRank(x: readonly number[], y?: readonly number[], options: WilcoxonOptions = {}): WilcoxonResult {
  if (y && y.length !== x.length) throw new Error(`wilcoxonSignedRank: x has ${x.length} values, y has ${y.length}`);
  const alternative = options.alternative ?? 'two-sided';
  const differences = x.map((v, i) => {
    assertFinite(`wilcoxonSignedRank: x[${i}]`, v);
    if (!y) return v;
    const w = y[i]!; // same length as x, checked above
    assertFinite(`wilcoxonSignedRank: y[${i}]`, w);
    return v - w;
  });
  const nonZero = differences.filter((d) => d !== 0);
  const zeros = differences.length - nonZero.length;
  const n = nonZero.length;
  if (n === 0) return { statistic: 0, n: 0, zeros, p: 1, method: 'exact', z: null, rankBiserial: 0 };
  const { ranks, ties } = rankWithTies(nonZero.map(Math.abs));
  let positive = 0;
  nonZero.forEach((d, i) => {
    if (d > 0) positive += ranks[i]!;
  });
  const total = (n * (n + 1)) / 2;
  const rankBiserial = (positive - (total - positive)) / total;
  const exact = options.exact ?? (n < 50 && ties.length === 0);
  if (exact && ties.length === 0) {
    const dist = signedRankDistribution(n);
    const v = Math.round(positive);
    const lower = dist.slice(0, v + 1).reduce((s, q) => s + q, 0); // P(V <= v)
    const upper = dist.slice(v).reduce((s, q) => s + q, 0); // P(V >= v)
    const p = alternative === 'greater' ? upper : alternative === 'less' ? lower : Math.min(1, 2 * Math.min(lower, upper));
    return { statistic: positive, n, zeros, p: Math.min(1, p), method: 'exact', z: null, rankBiserial };
  }
  const mean = total / 2;
  const variance = (n * (n + 1) * (2 * n + 1)) / 24 - tieSum(ties) / 48;
  const sigma = Math.sqrt(variance);
  const diff = positive - mean;
  const correction = options.correction === false ? 0 : alternative === 'two-sided' ? Math.sign(diff) * 0.5 : alternative === 'greater' ? 0.5 : -0.5;
  // All differences tied at the same magnitude and sign still has variance > 0; sigma is 0 only for n = 0.
  const z = sigma > 0 ? (diff - correction) / sigma : 0;
  const p =
    alternative === 'greater' ? normalSurvival(z) : alternative === 'less' ? normalCdf(z) : Math.min(1, 2 * normalSurvival(Math.abs(z)));
  return { statistic: positive, n, zeros, p, method: 'normal', z, rankBiserial };
}
