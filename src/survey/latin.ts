/**
 * Counterbalancing: block orders from a Williams design, a Latin square in which every
 * team appears once in every position and follows every other team equally often (first-
 * order carry-over balance). For an odd number of teams that needs two squares (the square
 * and its mirror), so there are 2k orders; for an even number, k.
 */

/** Rows of a Williams design for `k` conditions, each a permutation of 0..k-1. */
export function williamsDesign(k: number): number[][] {
  if (!Number.isInteger(k) || k < 1) throw new Error(`williamsDesign: k must be a positive integer, got ${k}`);
  // First row 0, 1, k-1, 2, k-2, ...; row i adds i to every entry (mod k).
  const first: number[] = [];
  for (let i = 0, lo = 1, hi = k - 1; i < k; i++) {
    if (i === 0) first.push(0);
    else if (i % 2 === 1) first.push(lo++);
    else first.push(hi--);
  }
  const rows = Array.from({ length: k }, (_, r) => first.map((c) => (c + r) % k));
  if (k % 2 === 1 && k > 1) rows.push(...rows.map((row) => [...row].reverse()));
  return rows;
}

/** The block orders of a study: its teams in each row's order. */
export function blockOrders<T>(teams: readonly T[]): T[][] {
  return williamsDesign(teams.length).map((row) => row.map((i) => teams[i]!));
}

/**
 * Which row the next participant gets: the one held by the fewest participants who count
 * (finished, or still active), the earliest row on ties. Abandoned sessions free their row,
 * so orders stay balanced among the people who actually take part.
 */
export function nextRow(rowCount: number, heldRows: readonly number[]): number {
  const held = new Array<number>(rowCount).fill(0);
  for (const r of heldRows) if (r >= 0 && r < rowCount) held[r]!++;
  let best = 0;
  for (let r = 1; r < rowCount; r++) if (held[r]! < held[best]!) best = r;
  return best;
}
