/**
 * Ranks with ties: the shared step of the rank tests (Friedman, Wilcoxon).
 */
import { assertFinite } from './validate';

/** Ranks and the sizes of their tie groups. */
export interface Ranking {
  /** 1-based ranks in input order; tied values share the mean of their ranks. */
  ranks: number[];
  /** Size of every group of tied values with more than one member. */
  ties: number[];
}

/**
 * Rank `values` from smallest (rank 1) to largest, giving tied values the average of the
 * ranks they span ("mid-ranks", as R's `rank` and SciPy's `rankdata` do by default).
 */
export function rankWithTies(values: readonly number[]): Ranking {
  values.forEach((v, i) => assertFinite(`rankWithTies: values[${i}]`, v));
  const order = values.map((_, i) => i).sort((a, b) => values[a]! - values[b]!);
  const ranks = new Array<number>(values.length);
  const ties: number[] = [];
  let start = 0;
  while (start < order.length) {
    let end = start + 1;
    while (end < order.length && values[order[end]!] === values[order[start]!]) end++;
    // Positions start..end-1 hold ranks start+1..end: their mean is (start + 1 + end) / 2.
    const rank = (start + 1 + end) / 2;
    for (let i = start; i < end; i++) ranks[order[i]!] = rank;
    if (end - start > 1) ties.push(end - start);
    start = end;
  }
  return { ranks, ties };
}

/** Σ (t³ − t) over tie groups: the tie term of rank-test variances. */
export function tieSum(ties: readonly number[]): number {
  return ties.reduce((s, t) => s + t * t * t - t, 0);
}
