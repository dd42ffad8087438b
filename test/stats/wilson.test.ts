import { describe, expect, it } from 'vitest';
import { wilsonInterval } from '../../src/stats/wilson';

const Z95 = 1.959963984540054;

describe('wilsonInterval', () => {
  it('matches the textbook example 81/263 ≈ [0.2553, 0.3662]', () => {
    // By hand: p̂ = 0.307985, z²/n = 0.014606, center = 0.310750,
    // half-width = 1.959964·√(0.00081037 + 0.00001388)/1.014606 = 0.055461.
    const { estimate, lower, upper } = wilsonInterval(81, 263);
    expect(estimate).toBeCloseTo(81 / 263, 15);
    expect(Math.abs(lower - 0.2553)).toBeLessThan(5e-5);
    expect(Math.abs(upper - 0.3662)).toBeLessThan(5e-5);
  });

  it('matches the closed forms at 0 and n successes', () => {
    // x = 0: upper = z²/(n + z²); x = n: lower = n/(n + z²).
    const zero = wilsonInterval(0, 10);
    expect(zero.lower).toBe(0);
    expect(Math.abs(zero.upper - (Z95 * Z95) / (10 + Z95 * Z95))).toBeLessThan(1e-12);
    expect(Math.abs(zero.upper - 0.2775)).toBeLessThan(1e-4);
    const all = wilsonInterval(10, 10);
    expect(all.upper).toBe(1);
    expect(Math.abs(all.lower - 10 / (10 + Z95 * Z95))).toBeLessThan(1e-12);
    expect(Math.abs(all.lower - 0.7225)).toBeLessThan(1e-4);
  });

  it('is symmetric around 1/2 for 50/100: [0.4038, 0.5962]', () => {
    const { lower, upper } = wilsonInterval(50, 100);
    expect(Math.abs(lower - 0.4038)).toBeLessThan(5e-5);
    expect(Math.abs(upper - 0.5962)).toBeLessThan(5e-5);
    expect(Math.abs(lower + upper - 1)).toBeLessThan(1e-12);
  });

  it('widens with confidence', () => {
    const i95 = wilsonInterval(30, 80);
    const i99 = wilsonInterval(30, 80, 0.99);
    expect(i99.lower).toBeLessThan(i95.lower);
    expect(i99.upper).toBeGreaterThan(i95.upper);
  });

  it('throws clear errors for bad input', () => {
    expect(() => wilsonInterval(0, 0)).toThrow(/n is 0/);
    expect(() => wilsonInterval(-1, 10)).toThrow(/successes must not be negative/);
    expect(() => wilsonInterval(3, -10)).toThrow(/n must not be negative/);
    expect(() => wilsonInterval(11, 10)).toThrow(/exceed/);
    expect(() => wilsonInterval(2.5, 10)).toThrow(/integer/);
    expect(() => wilsonInterval(5, 10, 1.2)).toThrow(/confidence/);
  });
});
