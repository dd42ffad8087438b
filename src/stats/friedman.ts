/**
 * The Friedman test: do k related treatments differ, judged from ranks within each
 * subject? (Friedman 1937; the repeated-measures analogue of the Kruskal-Wallis test.)
 */
import { chiSquareSurvival } from './distributions';
import { rankWithTies, tieSum } from './ranks';

export interface FriedmanResult {
  /** The tie-corrected Friedman chi-square statistic. */
  statistic: number;
  /** Degrees of freedom k − 1. */
  df: number;
  /** Upper-tail p-value from χ²(k − 1) (the large-sample approximation R and SciPy use). */
  p: number;
  /** Subjects (rows). */
  n: number;
  /** Treatments (columns). */
  k: number;
  /** Kendall's coefficient of concordance W = χ²_F / (n (k − 1)), in [0, 1]. */
  kendallW: number;
  /** Mean rank of each treatment (1 = lowest value). */
  meanRanks: number[];
}

/**
 * Friedman rank-sum test on a complete block design: `data[i][j]` is subject i's value
 * under treatment j. Values are ranked within each subject (ties get mid-ranks) and
 *
 *   χ²_F = [12 / (n k (k + 1)) Σ_j R_j² − 3 n (k + 1)] / [1 − Σ (t³ − t) / (n (k³ − k))]
 *
 * with R_j the rank sum of treatment j and t the sizes of tie groups within subjects (the
 * same statistic as R's `friedman.test` and SciPy's `friedmanchisquare`). When every
 * subject ties all treatments the statistic is 0 and p is 1.
 *
 * @throws Error for fewer than 2 subjects or treatments, ragged rows, or non-finite values.
 */
export function friedmanTest(data: readonly (readonly number[])[]): FriedmanResult {
  const n = data.length;
  if (n < 2) throw new Error(`friedmanTest: need at least 2 subjects (rows), got ${n}`);
  const k = data[0]!.length; // n >= 2 rows
  if (k < 2) throw new Error(`friedmanTest: need at least 2 treatments (columns), got ${k}`);
  const rankSums = new Array<number>(k).fill(0);
  let ties = 0;
  data.forEach((row, i) => {
    if (row.length !== k) throw new Error(`friedmanTest: row ${i} has ${row.length} values, row 0 has ${k}`);
    const r = rankWithTies(row);
    r.ranks.forEach((rank, j) => (rankSums[j]! += rank));
    ties += tieSum(r.ties);
  });
  const base = (12 / (n * k * (k + 1))) * rankSums.reduce((s, R) => s + R * R, 0) - 3 * n * (k + 1);
  const correction = 1 - ties / (n * (k * k * k - k));
  // Every subject tied everything: no evidence of any difference.
  const statistic = correction <= 1e-12 ? 0 : Math.max(0, base / correction);
  const df = k - 1;
  return {
    statistic,
    df,
    p: statistic === 0 ? 1 : chiSquareSurvival(statistic, df),
    n,
    k,
    kendallW: statistic / (n * df),
    meanRanks: rankSums.map((R) => R / n),
  };
}
