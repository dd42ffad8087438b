import { describe, expect, it } from 'vitest';
import {
  acklamInverseCdf,
  chiSquareCdf,
  chiSquareSurvival,
  erf,
  normalCdf,
  normalInverseCdf,
  normalSurvival,
  twoSidedPValue,
  zCritical,
} from '../../src/stats/distributions';
import { lnFactorial, lnGamma, regularizedGammaP, regularizedGammaQ } from '../../src/stats/gamma';

describe('normal distribution', () => {
  it('matches published CDF values', () => {
    // Φ(1.96) = 0.9750021 (standard tables); R: pnorm(1.96) = 0.9750021048517795.
    expect(Math.abs(normalCdf(1.96) - 0.9750021)).toBeLessThan(1e-7);
    expect(Math.abs(normalCdf(1.96) - 0.9750021048517795)).toBeLessThan(1e-12);
    expect(normalCdf(0)).toBe(0.5);
    expect(Math.abs(normalCdf(1) - 0.8413447460685429)).toBeLessThan(1e-12);
    expect(Math.abs(normalCdf(-1) - 0.15865525393145707)).toBeLessThan(1e-12);
  });

  it('keeps relative accuracy far in the tails', () => {
    // R: pnorm(-5) = 2.866515718791939e-07, pnorm(-10) = 7.619853024160527e-24.
    expect(Math.abs(normalCdf(-5) / 2.866515718791939e-7 - 1)).toBeLessThan(1e-10);
    expect(Math.abs(normalCdf(-10) / 7.619853024160527e-24 - 1)).toBeLessThan(1e-10);
    expect(normalSurvival(10)).toBe(normalCdf(-10));
    expect(normalCdf(-40)).toBe(0);
    expect(normalCdf(40)).toBe(1);
  });

  it('erf matches a known value and is odd', () => {
    // erf(1) = 0.8427007929497149 (Abramowitz & Stegun table 7.1).
    expect(Math.abs(erf(1) - 0.8427007929497149)).toBeLessThan(1e-13);
    expect(erf(-0.7)).toBe(-erf(0.7));
  });

  it('inverts the CDF', () => {
    // Φ⁻¹(0.975) = 1.959964; R: qnorm(0.975) = 1.959963984540054.
    expect(Math.abs(normalInverseCdf(0.975) - 1.959964)).toBeLessThan(1e-6);
    expect(Math.abs(normalInverseCdf(0.975) - 1.959963984540054)).toBeLessThan(1e-12);
    expect(Math.abs(normalInverseCdf(0.01) - -2.326347874040841)).toBeLessThan(1e-12);
    expect(normalInverseCdf(0.5)).toBe(0);
    expect(normalInverseCdf(0)).toBe(-Infinity);
    expect(normalInverseCdf(1)).toBe(Infinity);
    for (const p of [1e-300, 1e-20, 1e-8, 0.001, 0.02425, 0.1, 0.3, 0.7, 0.9, 0.97575, 0.999]) {
      const x = normalInverseCdf(p);
      const back = p < 0.5 ? normalCdf(x) : 1 - normalSurvival(x);
      expect(Math.abs(back - p) / Math.min(p, 1 - p)).toBeLessThan(1e-12);
    }
  });

  it("Acklam's raw approximation is within its published 1.15e-9 relative error", () => {
    // Guards the coefficient table: a mistyped coefficient breaks this bound.
    for (let i = 1; i < 2000; i++) {
      const p = i / 2000;
      const exact = normalInverseCdf(p);
      if (exact !== 0) expect(Math.abs(acklamInverseCdf(p) / exact - 1)).toBeLessThan(1.15e-9);
    }
    for (const p of [1e-15, 1e-6, 0.01, 0.99, 1 - 1e-6]) {
      expect(Math.abs(acklamInverseCdf(p) / normalInverseCdf(p) - 1)).toBeLessThan(1.15e-9);
    }
  });

  it('gives two-sided p-values and critical values', () => {
    // 2·(1 − Φ(1.96)) = 0.04999579 (R: 2*pnorm(-1.96)).
    expect(Math.abs(twoSidedPValue(1.96) - 0.04999579029644087)).toBeLessThan(1e-12);
    expect(twoSidedPValue(-1.96)).toBe(twoSidedPValue(1.96));
    expect(twoSidedPValue(0)).toBe(1);
    expect(Math.abs(zCritical(0.95) - 1.959963984540054)).toBeLessThan(1e-12);
    expect(Math.abs(zCritical(0.99) - 2.5758293035489)).toBeLessThan(1e-11);
  });

  it('rejects invalid arguments', () => {
    expect(() => normalInverseCdf(1.5)).toThrow(/probability in \[0, 1\]/);
    expect(() => normalInverseCdf(NaN)).toThrow();
    expect(() => zCritical(1)).toThrow(/confidence/);
    expect(() => twoSidedPValue(NaN)).toThrow(/NaN/);
  });
});

describe('chi-square distribution', () => {
  it('gives the textbook 5% critical values', () => {
    expect(Math.abs(chiSquareSurvival(3.841459, 1) - 0.05)).toBeLessThan(1e-6);
    expect(Math.abs(chiSquareSurvival(5.991465, 2) - 0.05)).toBeLessThan(1e-6);
    // 18.307 is the table value rounded to 3 decimals (exact 18.307038).
    expect(Math.abs(chiSquareSurvival(18.307, 10) - 0.05)).toBeLessThan(2e-6);
  });

  it('matches closed forms for df 1, 2 and 4', () => {
    for (const x of [0.01, 0.5, 1, 3, 6.4, 10, 30, 100]) {
      // df 1: P(χ² >= x) = P(|Z| >= √x).
      expect(Math.abs(chiSquareSurvival(x, 1) - twoSidedPValue(Math.sqrt(x)))).toBeLessThan(1e-14);
      // df 2: e^(−x/2); df 4: e^(−x/2)(1 + x/2).
      expect(Math.abs(chiSquareSurvival(x, 2) / Math.exp(-x / 2) - 1)).toBeLessThan(1e-12);
      expect(Math.abs(chiSquareSurvival(x, 4) / (Math.exp(-x / 2) * (1 + x / 2)) - 1)).toBeLessThan(1e-12);
      expect(Math.abs(chiSquareCdf(x, 3) + chiSquareSurvival(x, 3) - 1)).toBeLessThan(1e-14);
    }
    expect(chiSquareSurvival(0, 3)).toBe(1);
  });

  it('rejects invalid arguments', () => {
    expect(() => chiSquareSurvival(-1, 2)).toThrow(/>= 0/);
    expect(() => chiSquareSurvival(1, 0)).toThrow(/degrees of freedom/);
  });
});

describe('gamma functions', () => {
  it('lnGamma matches factorials and Γ(1/2) = √π', () => {
    let factorial = 1;
    for (let n = 1; n <= 20; n++) {
      factorial *= n;
      expect(Math.abs(lnGamma(n + 1) - Math.log(factorial))).toBeLessThan(1e-12 * Math.max(1, Math.log(factorial)));
    }
    expect(Math.abs(lnGamma(0.5) - 0.5 * Math.log(Math.PI))).toBeLessThan(1e-14);
    // ln Γ(0.1) = 2.252712651734206 (reflection branch).
    expect(Math.abs(lnGamma(0.1) - 2.252712651734206)).toBeLessThan(1e-13);
    // ln(100000!) = 1051299.221899121 (Stirling series to many terms).
    expect(Math.abs(lnFactorial(100000) - 1051299.2218991218)).toBeLessThan(1e-6);
    expect(() => lnGamma(0)).toThrow(/x > 0/);
  });

  it('P and Q are complementary and P(1, x) = 1 − e^(−x)', () => {
    for (const [a, x] of [
      [0.5, 0.2],
      [3, 1],
      [3, 10],
      [50, 45],
      [50, 60],
    ] as const) {
      expect(Math.abs(regularizedGammaP(a, x) + regularizedGammaQ(a, x) - 1)).toBeLessThan(1e-14);
    }
    for (const x of [0.1, 1, 2, 5]) {
      expect(Math.abs(regularizedGammaP(1, x) - (1 - Math.exp(-x)))).toBeLessThan(1e-14);
    }
  });
});
