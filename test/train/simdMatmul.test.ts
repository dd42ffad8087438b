import { describe, expect, it } from 'vitest';
import { tanh } from '../../src/train/mlp';
import { SimdMatmul } from '../../src/train/simdMatmul';
import { Rng } from '../../src/sim';

/** C += A · B in float32, each C[i, j] summed over k in order: the order the kernel promises. */
function reference(A: Float32Array, rs: number, ks: number, B: Float32Array, C: Float32Array, rows: number, inner: number, cols: number): Float32Array {
  const out = C.slice();
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      let s = out[i * cols + j]!;
      for (let k = 0; k < inner; k++) s = Math.fround(s + Math.fround(A[i * rs + k * ks]! * B[k * cols + j]!));
      out[i * cols + j] = s;
    }
  }
  return out;
}

describe('SimdMatmul', () => {
  const rng = new Rng(3);
  const random = (n: number) => Float32Array.from({ length: n }, () => rng.next() * 2 - 1);

  // Shapes of the networks (20 inputs, 128 or 64 wide, 5 or 1 outputs) and leftovers of the 16- and 4-wide column blocks.
  it.each([
    [1, 1, 1],
    [3, 5, 7],
    [256, 20, 128],
    [64, 128, 5],
    [20, 256, 128],
    [9, 13, 21],
    [256, 128, 1],
  ])('matches float32 in order, bit for bit, for %i x %i x %i, A plain and transposed', (rows, inner, cols) => {
    const kernel = new SimdMatmul();
    for (const transposed of [false, true]) {
      const A = random(rows * inner);
      const B = random(inner * cols);
      const C = random(rows * cols);
      const [rs, ks] = transposed ? [1, rows] : [inner, 1];
      const expected = reference(A, rs, ks, B, C, rows, inner, cols);
      kernel.matmulAcc(A, rs, ks, B, C, rows, inner, cols);
      expect(C).toEqual(expected);
    }
  });

  it('grows its memory for a product larger than one page, and stays right after', () => {
    const kernel = new SimdMatmul();
    const A = random(512 * 128);
    const B = random(128 * 128);
    const C = new Float32Array(512 * 128);
    const expected = reference(A, 128, 1, B, C, 512, 128, 128);
    kernel.matmulAcc(A, 128, 1, B, C, 512, 128, 128);
    expect(C).toEqual(expected);
  });
});

describe('tanh', () => {
  it('is within 3e-7 of Math.tanh, odd, and never past +-1', () => {
    let worst = 0;
    for (let x = -12; x <= 12; x += 0.001) worst = Math.max(worst, Math.abs(tanh(x) - Math.tanh(x)));
    expect(worst).toBeLessThan(3e-7);
    expect(tanh(-0.7)).toBe(-tanh(0.7));
    expect(tanh(40)).toBeLessThanOrEqual(1);
    expect(tanh(40)).toBeGreaterThan(1 - 3e-7);
  });
});
