/**
 * A small Float32Array multilayer perceptron for PPO training in plain TypeScript.
 *
 * Why hand-written: when it was chosen, one PPO step (forward + backward + Adam) took 0.9 /
 * 3.5 / 29 ms at batch 64 / 256 / 2048 here against 2.7 / 6.7 / 35 ms with tfjs-wasm (not a
 * dependency, so no bench can rerun that side); small nets are dominated by call overhead,
 * not FLOPs. `npm run bench -- --only training` prints this MLP's update times today.
 * The products go through a WebAssembly SIMD kernel (simdMatmul.ts) and tanh is a rational
 * approximation (below): the study's 2x128 networks made both the bulk of a step.
 *
 * Shape: `sizes = [in, h1, ..., out]`; tanh on hidden layers, linear output.
 *
 * Parameter layout (shared with the ONNX exporter): all parameters live in ONE Float32Array so
 * Adam and serialisation are a single loop / a single copy. Layer l occupies, in order,
 *   W_l: sizes[l] x sizes[l+1], row-major [in][out]  (y = x · W + b, i.e. ONNX Gemm with transB=0)
 *   b_l: sizes[l+1]
 * `grads` has the identical layout.
 */

import { SimdMatmul } from './simdMatmul';

/** What the ONNX exporter and reference forward need from a network: sizes + flat params. */
export interface MlpWeights {
  readonly sizes: readonly number[];
  readonly params: Float32Array;
}

/** Offsets of one layer inside the flat parameter array. */
export interface LayerLayout {
  readonly nIn: number;
  readonly nOut: number;
  /** Start of W (nIn * nOut floats, row-major [in][out]). */
  readonly wOffset: number;
  /** Start of b (nOut floats). */
  readonly bOffset: number;
}

/** Flat-array layout for `sizes`; the single source of truth for where each W and b lives. */
export function mlpLayout(sizes: readonly number[]): { layers: LayerLayout[]; paramCount: number } {
  if (sizes.length < 2) throw new Error(`MLP needs at least 2 layer sizes, got [${sizes.join(', ')}]`);
  for (const s of sizes) {
    if (!Number.isInteger(s) || s <= 0) throw new Error(`MLP layer sizes must be positive integers, got [${sizes.join(', ')}]`);
  }
  const layers: LayerLayout[] = [];
  let offset = 0;
  for (let l = 0; l + 1 < sizes.length; l++) {
    const nIn = sizes[l]!;
    const nOut = sizes[l + 1]!;
    layers.push({ nIn, nOut, wOffset: offset, bOffset: offset + nIn * nOut });
    offset += nIn * nOut + nOut;
  }
  return { layers, paramCount: offset };
}

export interface MlpInitOptions {
  /** Orthogonal-init gain for hidden layers (PPO convention: sqrt(2)). */
  hiddenGain?: number;
  /** Orthogonal-init gain for the output layer (PPO convention: 0.01 for policy heads, 1 for value heads). */
  outputGain?: number;
}

/** Per-layer views into params/grads, built once so the hot path never allocates. */
interface LayerViews extends LayerLayout {
  readonly W: Float32Array;
  readonly b: Float32Array;
  readonly gW: Float32Array;
  readonly gb: Float32Array;
}

export class Mlp implements MlpWeights {
  readonly sizes: readonly number[];
  /** All weights and biases, layout documented at the top of this file. */
  readonly params: Float32Array;
  /** Gradient accumulator, same layout as `params`. `backward` adds to it; `zeroGrad` clears it. */
  readonly grads: Float32Array;
  readonly layers: readonly LayerLayout[];

  private readonly views: LayerViews[];
  private readonly maxWidth: number;
  /** acts[0] = copy of the input, acts[l+1] = output of layer l (post-tanh for hidden layers). */
  private acts: Float32Array[] = [];
  /** Ping-pong buffers for dLoss/d(pre-activation) while walking layers backwards. */
  private deltaA = new Float32Array(0);
  private deltaB = new Float32Array(0);
  /** Transposed weights of one layer, [nOut][nIn]; sized once for the largest layer. */
  private readonly wT: Float32Array;
  private capacity = 0;
  private lastBatch = 0;
  private outView: Float32Array = new Float32Array(0);
  /** The products of forward and backward (its own memory, so every network and thread has its own). */
  private readonly kernel = new SimdMatmul();

  /**
   * @param rng uniform [0, 1) source; the only randomness used, so the same seed gives the same net.
   */
  constructor(sizes: readonly number[], rng: () => number, options: MlpInitOptions = {}) {
    const { layers, paramCount } = mlpLayout(sizes);
    this.sizes = [...sizes];
    this.layers = layers;
    this.params = new Float32Array(paramCount);
    this.grads = new Float32Array(paramCount);
    this.views = layers.map((L) => ({
      ...L,
      W: this.params.subarray(L.wOffset, L.wOffset + L.nIn * L.nOut),
      b: this.params.subarray(L.bOffset, L.bOffset + L.nOut),
      gW: this.grads.subarray(L.wOffset, L.wOffset + L.nIn * L.nOut),
      gb: this.grads.subarray(L.bOffset, L.bOffset + L.nOut),
    }));
    this.maxWidth = Math.max(...sizes);
    this.wT = new Float32Array(Math.max(...layers.map((L) => L.nIn * L.nOut)));

    const hiddenGain = options.hiddenGain ?? Math.SQRT2;
    const outputGain = options.outputGain ?? 0.01;
    this.views.forEach((v, l) => {
      const gain = l === this.views.length - 1 ? outputGain : hiddenGain;
      orthogonalInit(v.W, v.nIn, v.nOut, gain, rng);
      v.b.fill(0);
    });
  }

  get inputSize(): number {
    return this.sizes[0]!;
  }

  get outputSize(): number {
    return this.sizes[this.sizes.length - 1]!;
  }

  /** Copy weights from another flat array (e.g. a checkpoint or a target network). */
  setParams(src: Float32Array): void {
    if (src.length !== this.params.length) {
      throw new Error(`param length mismatch: expected ${this.params.length}, got ${src.length}`);
    }
    this.params.set(src);
  }

  zeroGrad(): void {
    this.grads.fill(0);
  }

  /**
   * Batched forward pass. `input` holds `batch` rows of `inputSize` floats.
   * Returns a view of `batch * outputSize` floats that stays valid until the next `forward`;
   * activations are kept for `backward`.
   */
  forward(input: Float32Array, batch: number): Float32Array {
    const nIn = this.inputSize;
    if (input.length < batch * nIn) {
      throw new Error(`forward: input has ${input.length} floats, need batch ${batch} x ${nIn}`);
    }
    this.ensureCapacity(batch);
    this.lastBatch = batch;
    const acts = this.acts;
    const x0 = acts[0]!;
    for (let i = 0, n = batch * nIn; i < n; i++) x0[i] = input[i]!; // copy: caller may reuse `input`
    const last = this.views.length - 1;
    for (let l = 0; l <= last; l++) {
      const v = this.views[l]!;
      const out = acts[l + 1]!;
      for (let i = 0; i < batch; i++) out.set(v.b, i * v.nOut); // y = b + x · W
      this.kernel.matmulAcc(acts[l]!, v.nIn, 1, v.W, out, batch, v.nIn, v.nOut);
      if (l < last) {
        const n = batch * v.nOut;
        for (let i = 0; i < n; i++) out[i] = tanh(out[i]!);
      }
    }
    if (this.outView.length !== batch * this.outputSize || this.outView.buffer !== acts[last + 1]!.buffer) {
      this.outView = acts[last + 1]!.subarray(0, batch * this.outputSize); // cached: PPO reuses batch sizes
    }
    return this.outView;
  }

  /**
   * Batched backward pass for the most recent `forward`. `dOut` is dLoss/dOutput
   * (`batch * outputSize` floats). Parameter gradients are ADDED to `grads`, so several
   * losses or minibatch chunks can be accumulated before one optimizer step.
   */
  backward(dOut: Float32Array): void {
    const batch = this.lastBatch;
    if (batch === 0) throw new Error('backward called before forward');
    if (dOut.length < batch * this.outputSize) {
      throw new Error(`backward: dOut has ${dOut.length} floats, need batch ${batch} x ${this.outputSize}`);
    }
    let delta: Float32Array = dOut; // dLoss/d(pre-activation) of the current layer's output
    let spare = this.deltaA;
    for (let l = this.views.length - 1; l >= 0; l--) {
      const v = this.views[l]!;
      const x = this.acts[l]!;
      // gW += x^T · delta (x read transposed in place), gb += column sums of delta.
      this.kernel.matmulAcc(x, 1, v.nIn, delta, v.gW, v.nIn, batch, v.nOut);
      accumulateBiasGrad(delta, v.gb, batch, v.nOut);
      if (l === 0) break; // the input gradient is not needed for PPO
      // dLoss/dx = delta · W^T, then through tanh: x = tanh(z) so dz = dx * (1 - x^2).
      transpose(v.W, this.wT, v.nIn, v.nOut);
      const n = batch * v.nIn;
      spare.fill(0, 0, n);
      this.kernel.matmulAcc(delta, v.nOut, 1, this.wT, spare, batch, v.nOut, v.nIn);
      for (let i = 0; i < n; i++) {
        const h = x[i]!;
        spare[i] = spare[i]! * (1 - h * h);
      }
      delta = spare;
      spare = spare === this.deltaA ? this.deltaB : this.deltaA;
    }
  }

  /** Grow (never shrink) the scratch buffers so they hold `batch` rows. */
  private ensureCapacity(batch: number): void {
    if (batch <= this.capacity) return;
    const cap = Math.max(batch, this.capacity * 2);
    this.acts = this.sizes.map((s) => new Float32Array(cap * s));
    this.deltaA = new Float32Array(cap * this.maxWidth);
    this.deltaB = new Float32Array(cap * this.maxWidth);
    this.capacity = cap;
  }
}

// ---------------------------------------------------------------------------------------------
// Kernels. The products run in simdMatmul.ts; the element-wise steps are here.
// ---------------------------------------------------------------------------------------------

/**
 * tanh as a rational function (Eigen's float tanh: odd degree-13 over even degree-6 on
 * |x| <= 7.905, where tanh is 1 in float32), within a few float32 ulps of Math.tanh.
 * Why: Math.tanh was 40% of a 2x128 training step (npm run bench, profiled); this is about
 * five times cheaper. Training only: play runs the deterministic forward of skills/policyNetwork.
 */
export function tanh(x: number): number {
  const c = x > 7.905311107635498 ? 7.905311107635498 : x < -7.905311107635498 ? -7.905311107635498 : x;
  const x2 = c * c;
  const p = ((((((-2.76076847742355e-16 * x2 + 2.00018790482477e-13) * x2 - 8.60467152213735e-11) * x2 + 5.12229709037114e-8) * x2 + 1.48572235717979e-5) * x2 + 6.37261928875436e-4) * x2 + 4.89352455891786e-3) * c;
  const q = ((1.19825839466702e-6 * x2 + 1.18534705686654e-4) * x2 + 2.268434632439e-3) * x2 + 4.89352518554385e-3;
  return p / q;
}

/** dst[cols, rows] = src[rows, cols]^T (W^T for the input gradient, so B rows stay contiguous). */
function transpose(src: Float32Array, dst: Float32Array, rows: number, cols: number): void {
  for (let r = 0; r < rows; r++) {
    const o = r * cols;
    for (let c = 0; c < cols; c++) dst[c * rows + r] = src[o + c]!;
  }
}

/** gb[j] += sum_i D[i, j]. */
function accumulateBiasGrad(D: Float32Array, gb: Float32Array, batch: number, nOut: number): void {
  for (let i = 0; i < batch; i++) {
    const d0 = i * nOut;
    for (let j = 0; j < nOut; j++) gb[j] = gb[j]! + D[d0 + j]!;
  }
}

// ---------------------------------------------------------------------------------------------
// Initialisation
// ---------------------------------------------------------------------------------------------

/** Standard normal from a uniform source (Box-Muller; 1 - u keeps log away from 0). */
function gaussian(rng: () => number): number {
  const u1 = 1 - rng();
  const u2 = rng();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/**
 * Orthogonal init (Saxe et al.), the PPO default: W [nIn][nOut] gets orthonormal columns when
 * nIn >= nOut, orthonormal rows otherwise, times `gain`. Built by modified Gram-Schmidt on a
 * Gaussian matrix in float64; a column that degenerates (numerically dependent) is redrawn.
 */
function orthogonalInit(W: Float32Array, nIn: number, nOut: number, gain: number, rng: () => number): void {
  const rows = Math.max(nIn, nOut);
  const cols = Math.min(nIn, nOut);
  const q = new Float64Array(rows * cols); // column c is q[c*rows .. c*rows+rows)
  for (let c = 0; c < cols; c++) {
    const col = q.subarray(c * rows, (c + 1) * rows);
    for (let attempt = 0; ; attempt++) {
      for (let r = 0; r < rows; r++) col[r] = gaussian(rng);
      for (let p = 0; p < c; p++) {
        const prev = q.subarray(p * rows, (p + 1) * rows);
        let dot = 0;
        for (let r = 0; r < rows; r++) dot += col[r]! * prev[r]!;
        for (let r = 0; r < rows; r++) col[r] = col[r]! - dot * prev[r]!;
      }
      let norm = 0;
      for (let r = 0; r < rows; r++) norm += col[r]! * col[r]!;
      norm = Math.sqrt(norm);
      if (norm > 1e-6 || attempt >= 8) {
        for (let r = 0; r < rows; r++) col[r] = col[r]! / (norm || 1);
        break;
      }
    }
  }
  for (let k = 0; k < nIn; k++) {
    for (let j = 0; j < nOut; j++) {
      // Orthonormal columns of length `rows` map to W's longer side.
      const v = nIn >= nOut ? q[j * rows + k]! : q[k * rows + j]!;
      W[k * nOut + j] = gain * v;
    }
  }
}
