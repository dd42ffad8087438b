/**
 * Adam over one flat Float32Array of parameters (see Mlp: all weights live in a single array,
 * so the optimizer is a single loop with no per-tensor bookkeeping).
 */

export interface AdamOptions {
  /** Learning rate; can also be passed to each `step` (PPO anneals it linearly). Default 3e-4. */
  lr?: number;
  beta1?: number;
  beta2?: number;
  /** Default 1e-5, the usual PPO choice (PyTorch's default is 1e-8). */
  eps?: number;
  /**
   * Clip the global L2 norm of the gradient to this value before the update (PPO: 0.5).
   * Undefined or Infinity disables clipping; the norm is still measured and returned.
   */
  maxGradNorm?: number;
}

/** What Adam carries from one step to the next (a checkpoint keeps it, so a resumed run moves exactly as it would have). */
export interface AdamState {
  readonly t: number;
  readonly m: Float32Array;
  readonly v: Float32Array;
}

export class Adam {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  maxGradNorm: number;
  /** First and second moment estimates (a checkpoint saves them through state()). */
  readonly m: Float32Array;
  readonly v: Float32Array;
  /** Number of steps taken (drives bias correction). */
  t = 0;

  constructor(readonly size: number, options: AdamOptions = {}) {
    this.lr = options.lr ?? 3e-4;
    this.beta1 = options.beta1 ?? 0.9;
    this.beta2 = options.beta2 ?? 0.999;
    this.eps = options.eps ?? 1e-5;
    this.maxGradNorm = options.maxGradNorm ?? Infinity;
    this.m = new Float32Array(size);
    this.v = new Float32Array(size);
  }

  /**
   * One update: params -= lr * mHat / (sqrt(vHat) + eps), with grads scaled by
   * min(1, maxGradNorm / norm) first. `grads` itself is not modified.
   * @param lr optional learning rate for this and later steps (for linear decay).
   * @returns the global gradient L2 norm before clipping (useful to log).
   */
  step(params: Float32Array, grads: Float32Array, lr?: number): number {
    if (params.length !== this.size || grads.length !== this.size) {
      throw new Error(`Adam: expected ${this.size} params/grads, got ${params.length}/${grads.length}`);
    }
    if (lr !== undefined) this.lr = lr;

    let sq = 0;
    for (let i = 0; i < this.size; i++) {
      const g = grads[i]!;
      sq += g * g;
    }
    const norm = Math.sqrt(sq);
    // Same rule as torch.nn.utils.clip_grad_norm_ (the 1e-6 guards a zero norm).
    const scale = norm > this.maxGradNorm ? this.maxGradNorm / (norm + 1e-6) : 1;

    this.t++;
    const b1 = this.beta1;
    const b2 = this.beta2;
    const c1 = 1 - Math.pow(b1, this.t);
    const c2 = 1 - Math.pow(b2, this.t);
    // Fold both bias corrections into a step size and an eps (as in the Adam paper, Sec. 2).
    const stepSize = (this.lr * Math.sqrt(c2)) / c1;
    const epsHat = this.eps * Math.sqrt(c2);
    const m = this.m;
    const v = this.v;
    for (let i = 0; i < this.size; i++) {
      const g = grads[i]! * scale;
      const mi = b1 * m[i]! + (1 - b1) * g;
      const vi = b2 * v[i]! + (1 - b2) * g * g;
      m[i] = mi;
      v[i] = vi;
      params[i] = params[i]! - (stepSize * mi) / (Math.sqrt(vi) + epsHat);
    }
    return norm;
  }

  /** A copy of the moments and the step count. */
  state(): AdamState {
    return { t: this.t, m: this.m.slice(), v: this.v.slice() };
  }

  /** Continue from a saved state (the learning rate and the other settings stay this optimizer's). */
  restore(state: AdamState): void {
    if (state.m.length !== this.size || state.v.length !== this.size) {
      throw new Error(`Adam: the saved moments are for ${state.m.length} parameters, this optimizer has ${this.size}`);
    }
    this.m.set(state.m);
    this.v.set(state.v);
    this.t = state.t;
  }

  /** Forget moments and step count (e.g. when starting a new training phase). */
  reset(): void {
    this.m.fill(0);
    this.v.fill(0);
    this.t = 0;
  }
}
