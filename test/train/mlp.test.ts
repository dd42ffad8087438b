import { describe, expect, it } from 'vitest';
import { Adam } from '../../src/train/adam';
import { Mlp, mlpLayout } from '../../src/train/mlp';
import { mulberry32 } from '../../src/stats';

function randomArray(n: number, rng: () => number, scale = 1): Float32Array {
  return Float32Array.from({ length: n }, () => (rng() * 2 - 1) * scale);
}

/** Obviously-correct float64 forward pass, straight from the documented parameter layout. */
function naiveForward(sizes: number[], params: ArrayLike<number>, x: ArrayLike<number>, batch: number): Float64Array {
  const { layers } = mlpLayout(sizes);
  let h = Float64Array.from(x);
  layers.forEach((L, l) => {
    const y = new Float64Array(batch * L.nOut);
    for (let i = 0; i < batch; i++) {
      for (let j = 0; j < L.nOut; j++) {
        let s = params[L.bOffset + j]!;
        for (let k = 0; k < L.nIn; k++) s += h[i * L.nIn + k]! * params[L.wOffset + k * L.nOut + j]!;
        y[i * L.nOut + j] = l < layers.length - 1 ? Math.tanh(s) : s;
      }
    }
    h = y;
  });
  return h;
}

/** Quadratic loss 0.5 * sum c * (y - t)^2 (c varies per output so errors cannot cancel). */
function quadLoss(y: ArrayLike<number>, target: Float32Array, coef: Float32Array): number {
  let loss = 0;
  for (let i = 0; i < target.length; i++) loss += 0.5 * coef[i]! * (y[i]! - target[i]!) ** 2;
  return loss;
}

describe('Mlp', () => {
  it('forward matches a naive float64 implementation, including unroll remainders and buffer growth', () => {
    const rng = mulberry32(7);
    const sizes = [6, 9, 5, 3]; // widths not multiples of 4 exercise the remainder loops
    const mlp = new Mlp(sizes, rng, { outputGain: 1 });
    mlp.params.set(randomArray(mlp.params.length, rng, 0.5)); // non-zero biases too
    for (const batch of [1, 3, 10, 2, 7]) {
      const x = randomArray(batch * sizes[0]!, rng, 2);
      const y = mlp.forward(x, batch);
      expect(y.length).toBe(batch * 3);
      const ref = naiveForward(sizes, mlp.params, x, batch);
      for (let i = 0; i < ref.length; i++) expect(Math.abs(y[i]! - ref[i]!)).toBeLessThan(1e-5);
    }
  });

  it('backward matches central finite differences for every parameter', () => {
    const rng = mulberry32(42);
    const sizes = [5, 7, 6, 3];
    const batch = 6; // > 4 so the batch-blocked weight-gradient kernel and its remainder both run
    const mlp = new Mlp(sizes, rng, { outputGain: 1 });
    for (let i = 0; i < mlp.params.length; i++) mlp.params[i] = mlp.params[i]! + (rng() * 2 - 1) * 0.3;
    const x = randomArray(batch * 5, rng, 1.5);
    const target = randomArray(batch * 3, rng);
    const coef = Float32Array.from({ length: batch * 3 }, () => 0.5 + rng());

    const y = mlp.forward(x, batch);
    const dOut = Float32Array.from(y, (v, i) => coef[i]! * (v - target[i]!));
    mlp.zeroGrad();
    mlp.backward(dOut);
    const analytic = Float64Array.from(mlp.grads);

    // Finite differences in float64 on the same parameters, so float32 rounding does not blur the check.
    const p64 = Float64Array.from(mlp.params);
    const h = 1e-5;
    let worst = 0;
    for (let p = 0; p < p64.length; p++) {
      const orig = p64[p]!;
      p64[p] = orig + h;
      const lp = quadLoss(naiveForward(sizes, p64, x, batch), target, coef);
      p64[p] = orig - h;
      const lm = quadLoss(naiveForward(sizes, p64, x, batch), target, coef);
      p64[p] = orig;
      const numeric = (lp - lm) / (2 * h);
      const rel = Math.abs(numeric - analytic[p]!) / Math.max(1e-3, Math.abs(numeric), Math.abs(analytic[p]!));
      worst = Math.max(worst, rel);
      expect(rel, `param ${p}: analytic ${analytic[p]} vs numeric ${numeric}`).toBeLessThan(1e-2);
    }
    expect(worst).toBeLessThan(1e-3); // in practice ~1e-6; float32 storage of the grads is the limit
  });

  it('backward accumulates into grads until zeroGrad', () => {
    const rng = mulberry32(3);
    const mlp = new Mlp([4, 8, 2], rng, { outputGain: 1 });
    const x = randomArray(5 * 4, rng);
    const dOut = randomArray(5 * 2, rng);
    mlp.zeroGrad();
    mlp.forward(x, 5);
    mlp.backward(dOut);
    const once = Float32Array.from(mlp.grads);
    mlp.forward(x, 5);
    mlp.backward(dOut);
    for (let i = 0; i < once.length; i++) expect(mlp.grads[i]).toBeCloseTo(2 * once[i]!, 5);
    mlp.zeroGrad();
    expect(mlp.grads.every((g) => g === 0)).toBe(true);
  });

  it('same seed gives the same parameters; a different seed does not', () => {
    const a = new Mlp([20, 128, 128, 5], mulberry32(123));
    const b = new Mlp([20, 128, 128, 5], mulberry32(123));
    const c = new Mlp([20, 128, 128, 5], mulberry32(124));
    expect(a.params).toEqual(b.params);
    expect(a.params).not.toEqual(c.params);
    expect(a.params.length).toBe(20 * 128 + 128 + 128 * 128 + 128 + 128 * 5 + 5);
  });

  it('initialises hidden layers orthogonally with the requested gains and zero biases', () => {
    const mlp = new Mlp([20, 32, 4], mulberry32(9), { hiddenGain: 2, outputGain: 0.5 });
    const [L0, L1] = mlp.layers;
    // Layer 0 is 20x32 (wide): rows are orthonormal * gain, so W W^T = gain^2 I.
    for (let r = 0; r < 20; r++) {
      for (let q = 0; q < 20; q++) {
        let dot = 0;
        for (let j = 0; j < 32; j++) dot += mlp.params[L0!.wOffset + r * 32 + j]! * mlp.params[L0!.wOffset + q * 32 + j]!;
        expect(dot).toBeCloseTo(r === q ? 4 : 0, 4);
      }
    }
    // Layer 1 is 32x4 (tall): columns are orthonormal * gain, so W^T W = gain^2 I.
    for (let c = 0; c < 4; c++) {
      for (let d = 0; d < 4; d++) {
        let dot = 0;
        for (let k = 0; k < 32; k++) dot += mlp.params[L1!.wOffset + k * 4 + c]! * mlp.params[L1!.wOffset + k * 4 + d]!;
        expect(dot).toBeCloseTo(c === d ? 0.25 : 0, 4);
      }
    }
    expect(mlp.params.subarray(L0!.bOffset, L0!.bOffset + 32).every((v) => v === 0)).toBe(true);
  });
});

describe('Adam', () => {
  it('minimises a quadratic', () => {
    // f(p) = 0.5 * sum a_i (p_i - c_i)^2 with very different curvatures a_i.
    const n = 10;
    const rng = mulberry32(5);
    const a = Float32Array.from({ length: n }, (_, i) => 10 ** ((i % 5) - 2));
    const c = randomArray(n, rng, 3);
    const params = new Float32Array(n);
    const grads = new Float32Array(n);
    const adam = new Adam(n, { lr: 0.05 });
    for (let t = 0; t < 3000; t++) {
      for (let i = 0; i < n; i++) grads[i] = a[i]! * (params[i]! - c[i]!);
      adam.step(params, grads, 0.05 * (1 - t / 3000) + 1e-3); // linear decay, as PPO does
    }
    for (let i = 0; i < n; i++) expect(Math.abs(params[i]! - c[i]!)).toBeLessThan(1e-2);
    expect(adam.t).toBe(3000);
  });

  it('takes a first step of size lr in the sign direction (bias correction)', () => {
    const params = new Float32Array([1, 1, 1]);
    const adam = new Adam(3, { lr: 0.1, eps: 1e-8 });
    adam.step(params, new Float32Array([3, -0.001, 0]));
    expect(params[0]).toBeCloseTo(0.9, 5);
    expect(params[1]).toBeCloseTo(1.1, 3);
    expect(params[2]).toBe(1);
  });

  it('clips the global gradient norm and returns the unclipped norm', () => {
    const grads = new Float32Array([3, 4]); // norm 5
    const clipped = new Adam(2, { lr: 0.1, maxGradNorm: 0.5 });
    const unclipped = new Adam(2, { lr: 0.1 });
    const p1 = new Float32Array(2);
    const p2 = new Float32Array(2);
    expect(clipped.step(p1, grads)).toBeCloseTo(5, 6);
    expect(unclipped.step(p2, grads)).toBeCloseTo(5, 6);
    expect(Array.from(grads)).toEqual([3, 4]); // not mutated
    // Adam's first step is scale-invariant, so compare moments: clipped m is 0.1x the unclipped one.
    expect(clipped.m[0]! / unclipped.m[0]!).toBeCloseTo(0.5 / 5, 4);
  });
});
