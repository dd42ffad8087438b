/**
 * Time spent per display frame advancing the match (simulation plus controllers), kept
 * for the latest frames. The browser test harness and `npm run bench` read it.
 */
import { percentile } from '../stats';

export interface FrameSummary {
  /** Frames measured (while a match ran, unpaused). */
  readonly frames: number;
  /** Ticks played over those frames. */
  readonly ticks: number;
  readonly medianMs: number;
  readonly p95Ms: number;
  readonly maxMs: number;
  readonly meanMs: number;
  /** Wall time between the first and last measured frame, in ms. */
  readonly spanMs: number;
}

export class FrameStats {
  private readonly samples: Float64Array;
  private count = 0;
  private ticks = 0;
  private first = -1;
  private last = -1;

  constructor(private readonly capacity = 4096) {
    this.samples = new Float64Array(capacity);
  }

  record(ms: number, ticks: number, at: number): void {
    this.samples[this.count % this.capacity] = ms;
    this.count++;
    this.ticks += ticks;
    if (this.first < 0) this.first = at;
    this.last = at;
  }

  reset(): void {
    this.count = 0;
    this.ticks = 0;
    this.first = -1;
    this.last = -1;
  }

  summary(): FrameSummary {
    const n = Math.min(this.count, this.capacity);
    const sorted = Array.from(this.samples.subarray(0, n)).sort((a, b) => a - b);
    // The frame nearest the percentile's rank: a frame time that occurred.
    const at = (p: number) => (n === 0 ? 0 : percentile(sorted, p, 'nearest'));
    const sum = sorted.reduce((s, v) => s + v, 0);
    return {
      frames: this.count,
      ticks: this.ticks,
      medianMs: at(50),
      p95Ms: at(95),
      maxMs: n === 0 ? 0 : sorted[n - 1]!,
      meanMs: n === 0 ? 0 : sum / n,
      spanMs: this.first < 0 ? 0 : this.last - this.first,
    };
  }
}
