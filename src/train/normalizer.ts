/**
 * Running observation normalisation (mean and variance over everything seen, merged batch
 * by batch with Chan et al.'s parallel update). The same statistics are baked into the
 * exported ONNX graph, so the policy sees identical inputs in training and in play.
 */
import { type ObsNormalization, normalizeObservation } from './onnxExport';

export const NORMALIZER_EPSILON = 1e-8;

export class RunningNormalizer {
  readonly mean: Float64Array;
  readonly var: Float64Array;
  count = 1e-4;
  private readonly batchMean: Float64Array;
  private readonly batchVar: Float64Array;
  private view: ObsNormalization | null = null;

  constructor(
    readonly size: number,
    readonly clip: number,
  ) {
    this.mean = new Float64Array(size);
    this.var = new Float64Array(size).fill(1);
    this.batchMean = new Float64Array(size);
    this.batchVar = new Float64Array(size);
  }

  /** Fold `n` rows of `data` into the statistics. */
  update(data: Float32Array, n: number): void {
    const d = this.size;
    this.batchMean.fill(0);
    this.batchVar.fill(0);
    for (let r = 0; r < n; r++) for (let i = 0; i < d; i++) this.batchMean[i]! += data[r * d + i]! / n;
    for (let r = 0; r < n; r++) {
      for (let i = 0; i < d; i++) this.batchVar[i]! += (data[r * d + i]! - this.batchMean[i]!) ** 2 / n;
    }
    const total = this.count + n;
    for (let i = 0; i < d; i++) {
      const delta = this.batchMean[i]! - this.mean[i]!;
      const m2 = this.var[i]! * this.count + this.batchVar[i]! * n + (delta * delta * this.count * n) / total;
      this.mean[i]! += (delta * n) / total;
      this.var[i] = m2 / total;
    }
    this.count = total;
    this.view = null;
  }

  /**
   * Fold in a batch given as sums: `n` rows, per input the sum and the sum of squares (how
   * the trainer's workers pool their rollouts: sums add across workers).
   */
  updateFromSums(n: number, sum: ArrayLike<number>, sumSq: ArrayLike<number>): void {
    if (n <= 0) return;
    const total = this.count + n;
    for (let i = 0; i < this.size; i++) {
      const batchMean = sum[i]! / n;
      const batchVar = Math.max(0, sumSq[i]! / n - batchMean * batchMean);
      const delta = batchMean - this.mean[i]!;
      const m2 = this.var[i]! * this.count + batchVar * n + (delta * delta * this.count * n) / total;
      this.mean[i]! += (delta * n) / total;
      this.var[i] = m2 / total;
    }
    this.count = total;
    this.view = null;
  }

  /** Forget the cached snapshot after the statistics were set from outside. */
  touch(): void {
    this.view = null;
  }

  /** The statistics as the exporter wants them (float32). */
  snapshot(): ObsNormalization {
    return (this.view ??= {
      obsMean: Float32Array.from(this.mean),
      obsVar: Float32Array.from(this.var),
      clip: this.clip,
      epsilon: NORMALIZER_EPSILON,
    });
  }

  /** Normalise `n` rows into `out`, exactly as the exported model will. */
  normalize(data: Float32Array, n: number, out: Float32Array): void {
    normalizeObservation(data.subarray(0, n * this.size), this.snapshot(), out.subarray(0, n * this.size));
  }

  toJSON() {
    return { mean: Array.from(this.mean), var: Array.from(this.var), count: this.count, clip: this.clip };
  }

  static fromJSON(json: { mean: number[]; var: number[]; count: number; clip: number }): RunningNormalizer {
    const n = new RunningNormalizer(json.mean.length, json.clip);
    n.mean.set(json.mean);
    n.var.set(json.var);
    n.count = json.count;
    return n;
  }
}
