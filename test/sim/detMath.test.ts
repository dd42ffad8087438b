/**
 * The simulation's elementary functions: within a few ulp of the engine's own Math (the
 * game's numbers keep their meaning), with its special cases, and the only ones the
 * deterministic layers use. That they give the same bits in chromium is
 * test/e2e/crossEngine.test.ts's job.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng, det } from '../../src/sim';

const bits = new Float64Array(2);
const words = new BigInt64Array(bits.buffer);
/** Distance in units in the last place between two finite doubles. */
function ulps(a: number, b: number): number {
  if (Object.is(a, b)) return 0;
  bits[0] = a;
  bits[1] = b;
  // Map sign-magnitude to a monotonic integer line.
  const line = (w: bigint) => (w < 0n ? -0x8000000000000000n - w : w);
  const d = line(words[0]!) - line(words[1]!);
  return Number(d < 0n ? -d : d);
}

function worstUlps(f: (x: number) => number, g: (x: number) => number, lo: number, hi: number, n = 200_000): number {
  const rng = new Rng(11);
  let worst = 0;
  for (let i = 0; i < n; i++) {
    const x = lo + (hi - lo) * rng.next();
    worst = Math.max(worst, ulps(f(x), g(x)));
  }
  return worst;
}

describe('deterministic math', () => {
  it.each([
    ['sin on [-10, 10] within 1 ulp', det.sin, Math.sin, -10, 10, 1],
    ['cos on [-10, 10] within 1 ulp', det.cos, Math.cos, -10, 10, 1],
    ['sin on [-1e5, 1e5] within 1 ulp', det.sin, Math.sin, -1e5, 1e5, 1],
    ['atan on [-50, 50] within 1 ulp', det.atan, Math.atan, -50, 50, 1],
    ['exp on [-700, 700] within 1 ulp', det.exp, Math.exp, -700, 700, 1],
    ['tanh on [-25, 25] within 8 ulp', det.tanh, Math.tanh, -25, 25, 8],
    ['tanh on [-0.2, 0.2] within 8 ulp', det.tanh, Math.tanh, -0.2, 0.2, 8],
  ] as const)('%s of Math', (_name, f, g, lo, hi, most) => {
    expect(worstUlps(f, g, lo, hi)).toBeLessThanOrEqual(most);
  });

  it('atan2 is within 1 ulp of Math.atan2 in every quadrant', () => {
    const rng = new Rng(5);
    let worst = 0;
    for (let i = 0; i < 200_000; i++) {
      const y = (rng.next() * 2 - 1) * 30;
      const x = (rng.next() * 2 - 1) * 30;
      worst = Math.max(worst, ulps(det.atan2(y, x), Math.atan2(y, x)));
    }
    expect(worst).toBeLessThanOrEqual(1);
  });

  it('keeps the special cases of Math: signed zeros, infinities, NaN', () => {
    const pairs: [number, number][] = [[0, 0], [-0, 0], [0, -0], [-0, -0], [1, 0], [-1, 0], [0, -1], [-0, -1], [Infinity, Infinity], [-Infinity, -Infinity], [Infinity, -Infinity], [1, -Infinity], [-1, Infinity], [Infinity, 3], [3, -1e-310], [1e-320, -1]];
    for (const [y, x] of pairs) expect(Object.is(det.atan2(y, x), Math.atan2(y, x)), `atan2(${y}, ${x})`).toBe(true);
    for (const f of ['sin', 'cos', 'exp', 'tanh', 'atan'] as const) {
      for (const x of [0, -0, Infinity, -Infinity, NaN, 1e-300, -1e-300]) {
        expect(Object.is(det[f](x), Math[f](x)), `${f}(${x})`).toBe(true);
      }
    }
    expect(det.exp(710)).toBe(Infinity);
    expect(det.exp(-746)).toBe(0);
    expect(ulps(det.exp(-744), Math.exp(-744))).toBeLessThanOrEqual(1); // subnormal results
  });

  it('hypot is the correctly rounded square root of the sum of squares', () => {
    expect(det.hypot(3, 4)).toBe(5);
    expect(det.hypot(32, 20)).toBe(Math.sqrt(1424));
  });
});

describe('the deterministic layers use no engine-approximated Math function', () => {
  const ROOTS = ['src/sim', 'src/skills', 'src/teams', 'src/match', 'src/web/controls.ts', 'src/web/crossEngine.ts'];
  const APPROXIMATED = /\bMath\.(sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|asinh|acosh|atanh|exp|expm1|log|log1p|log2|log10|pow|cbrt|hypot)\s*\(/;
  const files = (path: string): string[] =>
    statSync(path).isDirectory() ? readdirSync(path).flatMap((name) => files(join(path, name))) : path.endsWith('.ts') ? [path] : [];

  it('calls none of Math.sin, cos, atan2, exp, tanh, pow, hypot and friends outside comments (sim/detMath has them)', () => {
    const offenders: string[] = [];
    for (const file of ROOTS.flatMap(files).filter((f) => !f.endsWith('sim/detMath.ts'))) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          const code = line.replace(/\/\/.*$/, '').replace(/^\s*\/?\*.*$/, '');
          // The bench sets the engine's functions beside ours, saying so on the line.
          if (APPROXIMATED.test(code) && !line.includes("// the engine's own, for comparison")) offenders.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });
});
