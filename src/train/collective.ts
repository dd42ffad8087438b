/**
 * Sums across the trainer's workers (an all-reduce, as in data-parallel training): each
 * worker passes its numbers and gets back every worker's, summed in worker order, so all
 * workers hold the same bits afterwards and their identical optimizer steps keep one set
 * of weights without sending weights anywhere.
 *
 * SOLO is the one-worker case (the sum of one). SharedCollective spans worker threads over
 * a SharedArrayBuffer: each call writes its slot, waits at a barrier (Atomics.wait), and
 * reads everyone's slots. Calls alternate between two sets of slots, so one barrier per call
 * is enough: a worker can only write a set again after everyone has passed the next
 * barrier, that is, after everyone has read it.
 */

export interface Collective {
  /** How many workers take part, and which one this is (0-based). */
  readonly size: number;
  readonly rank: number;
  /** Replace `data` in place by the sum over workers of their `data` (the same length everywhere). */
  sum(data: Float64Array): void;
}

export const SOLO: Collective = { size: 1, rank: 0, sum: () => undefined };

/** The shared memory of one SharedCollective: made once, handed to every worker. */
export interface CollectiveMemory {
  readonly size: number;
  /** The most numbers one call may sum. */
  readonly capacity: number;
  /** Barrier: [workers arrived, generation]. */
  readonly barrier: SharedArrayBuffer;
  /** Two sets of `size` slots of `capacity` float64s each. */
  readonly slots: SharedArrayBuffer;
}

export function collectiveMemory(size: number, capacity: number): CollectiveMemory {
  return {
    size,
    capacity,
    barrier: new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT),
    slots: new SharedArrayBuffer(2 * size * capacity * Float64Array.BYTES_PER_ELEMENT),
  };
}

export class SharedCollective implements Collective {
  readonly size: number;
  private readonly barrier: Int32Array;
  private readonly slots: Float64Array;
  private readonly capacity: number;
  private calls = 0;

  constructor(
    memory: CollectiveMemory,
    readonly rank: number,
  ) {
    if (!Number.isInteger(rank) || rank < 0 || rank >= memory.size) throw new Error(`worker rank must be 0 to ${memory.size - 1}, got ${rank}`);
    this.size = memory.size;
    this.capacity = memory.capacity;
    this.barrier = new Int32Array(memory.barrier);
    this.slots = new Float64Array(memory.slots);
  }

  sum(data: Float64Array): void {
    if (data.length > this.capacity) throw new Error(`collective sum of ${data.length} numbers exceeds its capacity of ${this.capacity}`);
    const set = (this.calls++ % 2) * this.size * this.capacity;
    this.slots.set(data, set + this.rank * this.capacity);
    this.wait();
    for (let i = 0; i < data.length; i++) {
      let total = 0;
      for (let r = 0; r < this.size; r++) total += this.slots[set + r * this.capacity + i]!;
      data[i] = total;
    }
  }

  /** A generation barrier: the last to arrive resets the count and wakes the others. */
  private wait(): void {
    const generation = Atomics.load(this.barrier, 1);
    if (Atomics.add(this.barrier, 0, 1) === this.size - 1) {
      Atomics.store(this.barrier, 0, 0);
      Atomics.add(this.barrier, 1, 1);
      Atomics.notify(this.barrier, 1);
      return;
    }
    while (Atomics.load(this.barrier, 1) === generation) Atomics.wait(this.barrier, 1, generation);
  }
}
