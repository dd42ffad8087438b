/**
 * The wall clock, passed in. The game itself keeps no time (it counts ticks); only what
 * waits on the outside world (a language model's answer, its timeout, real-time pacing)
 * reads a clock, and it reads this one, so tests run those paths on a virtual clock
 * instead of sleeping.
 */

export interface Clock {
  /** Milliseconds from an arbitrary origin; only differences are meaningful. */
  now(): number;
  /** Resolves after `ms` milliseconds of this clock. */
  sleep(ms: number): Promise<void>;
  /** Calls `fire` after `ms` milliseconds; the returned function cancels it. */
  timer(ms: number, fire: () => void): () => void;
}

/** Real time: performance.now and setTimeout. */
export const SYSTEM_CLOCK: Clock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
  timer(ms, fire) {
    const handle = setTimeout(fire, ms);
    return () => clearTimeout(handle);
  },
};
