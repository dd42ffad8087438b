/**
 * The only randomness in Hillmind: a seeded 32-bit generator (mulberry32) whose whole
 * state is one uint32, so a world can carry it as a plain number and a hash can cover it.
 */

/** Advance a mulberry32 state; returns the next state. */
export function nextState(state: number): number {
  return (state + 0x6d2b79f5) >>> 0;
}

/** The uniform number in [0, 1) that belongs to a state (after nextState). */
export function valueOf(state: number): number {
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** Mix a seed and any number of labels into one uint32 (for per-episode, per-team streams). */
export function deriveSeed(seed: number, ...labels: (number | string)[]): number {
  let h = (seed >>> 0) ^ 0x9e3779b9;
  for (const label of labels) {
    const text = String(label);
    for (let i = 0; i < text.length; i++) {
      h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
    }
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
    h = (h ^ (h >>> 16)) >>> 0;
  }
  return h >>> 0;
}

/** A small generator object for controllers that keep their own stream. */
export class Rng {
  constructor(public state: number) {
    this.state = state >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = nextState(this.state);
    return valueOf(this.state);
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
}
