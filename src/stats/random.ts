/**
 * Small deterministic pseudo-random number generator, so that resampling
 * results are reproducible from a seed. Never uses Math.random.
 */

/**
 * Mulberry32 generator (Tommy Ettinger, public domain): a 32-bit state PRNG
 * returning uniform numbers in [0, 1). Adequate for bootstrap resampling, not
 * for cryptography.
 *
 * @param seed an integer; only its low 32 bits are used.
 */
export function mulberry32(seed: number): () => number {
  if (!Number.isInteger(seed)) {
    throw new Error(`mulberry32: seed must be an integer, got ${String(seed)}`);
  }
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
