import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/sim';
import { NORMALIZER_EPSILON, RunningNormalizer } from '../../src/train/normalizer';
import { normalizeObservation } from '../../src/train/onnxExport';

describe('RunningNormalizer', () => {
  const d = 3;
  const rng = new Rng(11);
  // Columns with different means and scales; batches of different sizes.
  const batches = [5, 1, 17, 40].map((n) =>
    Float32Array.from({ length: n * d }, (_, i) => [10, -2, 0.5][i % d]! + [3, 0.1, 0.01][i % d]! * (rng.next() * 2 - 1)),
  );

  it('merged batch statistics equal the mean and (population) variance of everything seen', () => {
    const norm = new RunningNormalizer(d, 5);
    for (const b of batches) norm.update(b, b.length / d);
    const all = batches.flatMap((b) => Array.from(b));
    const rows = all.length / d;
    expect(norm.count).toBeCloseTo(rows + 1e-4, 9);
    for (let j = 0; j < d; j++) {
      const column = all.filter((_, i) => i % d === j);
      const mean = column.reduce((a, b) => a + b, 0) / rows;
      const variance = column.reduce((a, b) => a + (b - mean) ** 2, 0) / rows;
      // Exactly the statistics of the data merged with the prior (count 1e-4, mean 0, var 1).
      const c = 1e-4;
      const total = rows + c;
      const expectedMean = (rows * mean) / total;
      const expectedVar = (c * 1 + rows * variance + ((c * rows) / total) * mean * mean) / total;
      expect(norm.mean[j]).toBeCloseTo(expectedMean, 9);
      expect(Math.abs(norm.var[j]! - expectedVar) / expectedVar).toBeLessThan(1e-9);
      expect(Math.abs(norm.mean[j]! - mean)).toBeLessThan(1e-4 * (1 + Math.abs(mean)));
    }
  });

  it('normalises exactly as the exported graph does, with fresh statistics after each update', () => {
    const norm = new RunningNormalizer(d, 2);
    norm.update(batches[0]!, 5);
    const before = norm.snapshot();
    expect(before.epsilon).toBe(NORMALIZER_EPSILON);
    expect(before.clip).toBe(2);
    norm.update(batches[3]!, 40);
    const after = norm.snapshot();
    expect(after).not.toBe(before);
    expect(Array.from(after.obsMean)).toEqual(Array.from(norm.mean, Math.fround));
    const out = new Float32Array(batches[2]!.length);
    norm.normalize(batches[2]!, 17, out);
    expect(Array.from(out)).toEqual(Array.from(normalizeObservation(batches[2]!, after)));
    for (let i = 0; i < out.length; i++) {
      const j = i % d;
      const z = (batches[2]![i]! - norm.mean[j]!) / Math.sqrt(norm.var[j]! + NORMALIZER_EPSILON);
      expect(out[i]).toBeCloseTo(Math.max(-2, Math.min(2, z)), 4);
    }
  });

  it('survives a JSON round trip', () => {
    const norm = new RunningNormalizer(d, 5);
    for (const b of batches) norm.update(b, b.length / d);
    const copy = RunningNormalizer.fromJSON(JSON.parse(JSON.stringify(norm.toJSON())));
    expect(Array.from(copy.mean)).toEqual(Array.from(norm.mean));
    expect(Array.from(copy.var)).toEqual(Array.from(norm.var));
    expect(copy.count).toBe(norm.count);
    expect(copy.clip).toBe(5);
  });
});
