/**
 * Shannon entropy of count distributions, including transitions between skills.
 */
import { assertCount } from './validate';

/** Counts given as an array, a record, or a map of label → count. */
export type CountTable = readonly number[] | Readonly<Record<string, number>> | ReadonlyMap<string, number>;

function countEntries(counts: CountTable): [string, number][] {
  if (Array.isArray(counts)) return (counts as readonly number[]).map((c, i) => [String(i), c]);
  if (counts instanceof Map) return [...counts.entries()];
  return Object.entries(counts as Readonly<Record<string, number>>);
}

/**
 * Shannon entropy in bits, H = −Σ p_i log2 p_i with p_i = c_i / Σc, of a
 * distribution given by counts. Zero counts contribute nothing.
 *
 * @throws Error when a count is negative or not an integer, or all counts are 0.
 */
export function shannonEntropy(counts: CountTable): number {
  const entries = countEntries(counts);
  entries.forEach(([label, c]) => assertCount(`count for "${label}"`, c));
  const total = entries.reduce((s, [, c]) => s + c, 0);
  if (total === 0) throw new Error('shannonEntropy: all counts are 0, the distribution is undefined');
  let h = 0;
  for (const [, c] of entries) {
    if (c > 0) {
      const p = c / total;
      h -= p * Math.log2(p);
    }
  }
  // −Σ p log p is >= 0 mathematically; clear rounding noise around 0.
  return Math.max(0, h);
}

const TRANSITION_SEPARATOR = '->';

/** Splits a "from->to" key; throws unless it has exactly one separator and non-empty sides. */
export function parseTransition(key: string): { from: string; to: string } {
  const parts = key.split(TRANSITION_SEPARATOR);
  const [from, to] = parts;
  if (parts.length !== 2 || !from || !to) {
    throw new Error(`transition key must look like "from->to", got "${key}"`);
  }
  return { from, to };
}

/**
 * Counts the transitions between consecutive items of a sequence (for
 * example the skills an agent used, in order) as "from->to" → count.
 */
export function countTransitions(sequence: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 1; i < sequence.length; i++) {
    const from = sequence[i - 1]!;
    const to = sequence[i]!;
    if (from.includes(TRANSITION_SEPARATOR) || to.includes(TRANSITION_SEPARATOR)) {
      throw new Error(`countTransitions: item names must not contain "${TRANSITION_SEPARATOR}"`);
    }
    const key = `${from}${TRANSITION_SEPARATOR}${to}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

function checkedTransitions(transitions: Readonly<Record<string, number>> | ReadonlyMap<string, number>): [string, number][] {
  const entries = countEntries(transitions);
  entries.forEach(([key, c]) => {
    parseTransition(key);
    assertCount(`count for "${key}"`, c);
  });
  return entries;
}

/**
 * Skill-transition entropy: Shannon entropy in bits of the joint distribution
 * of transitions, given counts keyed "from->to". 0 when a single transition
 * always occurs; log2(m) when m transitions are equally frequent.
 */
export function transitionEntropy(transitions: Readonly<Record<string, number>> | ReadonlyMap<string, number>): number {
  return shannonEntropy(new Map(checkedTransitions(transitions)));
}

/**
 * Conditional transition entropy H(to | from) = H(from, to) − H(from) in bits:
 * how unpredictable the next item is once the current one is known.
 */
export function conditionalTransitionEntropy(
  transitions: Readonly<Record<string, number>> | ReadonlyMap<string, number>,
): number {
  const entries = checkedTransitions(transitions);
  const fromCounts = new Map<string, number>();
  for (const [key, c] of entries) {
    const { from } = parseTransition(key);
    fromCounts.set(from, (fromCounts.get(from) ?? 0) + c);
  }
  return Math.max(0, shannonEntropy(new Map(entries)) - shannonEntropy(fromCounts));
}

/**
 * Jensen-Shannon divergence in bits between two distributions given as weights over the
 * same labels (normalised here): JSD = H(m) - (H(p) + H(q)) / 2 with m = (p + q) / 2. It is
 * symmetric, 0 for equal distributions and at most 1 bit.
 *
 * @throws Error when the lengths differ, a weight is negative, or one side sums to 0.
 */
export function jensenShannonDivergence(p: readonly number[], q: readonly number[]): number {
  if (p.length !== q.length) throw new Error(`jensenShannonDivergence: ${p.length} weights against ${q.length}`);
  const norm = (w: readonly number[]) => {
    if (w.some((x) => !(x >= 0))) throw new Error('jensenShannonDivergence: weights must be non-negative numbers');
    const total = w.reduce((s, x) => s + x, 0);
    if (total === 0) throw new Error('jensenShannonDivergence: a distribution sums to 0');
    return w.map((x) => x / total);
  };
  const a = norm(p);
  const b = norm(q);
  const h = (w: readonly number[]) => -w.reduce((s, x) => (x > 0 ? s + x * Math.log2(x) : s), 0);
  const m = a.map((x, i) => (x + b[i]!) / 2);
  return Math.min(1, Math.max(0, h(m) - (h(a) + h(b)) / 2));
}

/** Shannon entropy in bits of non-negative weights (normalised here); 0 for an empty or all-zero table. */
export function weightEntropy(weights: readonly number[]): number {
  const total = weights.reduce((s, x) => s + x, 0);
  if (!(total > 0)) return 0;
  return Math.max(0, -weights.reduce((s, x) => (x > 0 ? s + (x / total) * Math.log2(x / total) : s), 0));
}
