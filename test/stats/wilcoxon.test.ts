import { describe, expect, it } from 'vitest';
import { bonferroniAdjust, holmAdjust } from '../../src/stats/multipleComparisons';
import { wilcoxonSignedRank } from '../../src/stats/wilcoxon';

// Hollander & Wolfe (1973), p. 29: Hamilton depression scale before (x) and after (y)
// tranquilizer therapy (R's wilcox.test example: V = 40, p-value = 0.01953 for "greater").
const X = [1.83, 0.5, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.3];
const Y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29];

describe('wilcoxonSignedRank', () => {
  it("reproduces Hollander & Wolfe's depression example exactly (V = 40, p = 0.01953)", () => {
    const greater = wilcoxonSignedRank(X, Y, { alternative: 'greater' });
    expect(greater.method).toBe('exact');
    expect(greater.statistic).toBe(40);
    expect(greater.n).toBe(9);
    expect(greater.p).toBeCloseTo(5 / 256, 12);
    expect(wilcoxonSignedRank(X, Y).p).toBeCloseTo(10 / 256, 12);
    expect(wilcoxonSignedRank(X, Y, { alternative: 'less' }).p).toBeCloseTo(1 - 7 / 512, 12); // P(V >= 40) = 10/512, and V = 40 has 3 sign patterns
  });

  it('uses the tie-corrected normal approximation for Likert ratings (SciPy with correction)', () => {
    const a = [3, 4, 2, 5, 4, 3, 4, 2, 3, 5, 4, 4, 3, 2, 4];
    const b = [2, 4, 3, 3, 2, 3, 2, 2, 1, 4, 3, 2, 3, 1, 2];
    const r = wilcoxonSignedRank(a, b);
    expect(r.method).toBe('normal');
    expect(r.zeros).toBe(4);
    expect(r.n).toBe(11);
    expect(r.statistic).toBe(63);
    expect(r.p).toBeCloseTo(0.0069928011584980115, 10);
    expect(wilcoxonSignedRank(a, b, { correction: false }).p).toBeCloseTo(0.006089887114311724, 10);
    expect(wilcoxonSignedRank(a, b, { alternative: 'greater' }).p).toBeCloseTo(0.0034964005792490057, 10);
    expect(r.rankBiserial).toBeGreaterThan(0.8);
  });

  it('handles no differences, one sample, and bad input', () => {
    expect(wilcoxonSignedRank([1, 2, 3], [1, 2, 3])).toMatchObject({ n: 0, zeros: 3, p: 1 });
    expect(wilcoxonSignedRank([1, 2, 3, 4, 5, 6]).p).toBeCloseTo(2 / 64, 12);
    expect(() => wilcoxonSignedRank([1, 2], [1])).toThrow(/lengths|values/);
    expect(() => wilcoxonSignedRank([1, Infinity])).toThrow(/finite/);
  });
});

describe('multiple comparisons', () => {
  it("matches R's p.adjust for Holm and Bonferroni", () => {
    const p = [0.01, 0.04, 0.03, 0.2];
    // R: p.adjust(c(0.01, 0.04, 0.03, 0.2), "holm") -> 0.04 0.09 0.09 0.20
    const holm = holmAdjust(p);
    [0.04, 0.09, 0.09, 0.2].forEach((v, i) => expect(holm[i]).toBeCloseTo(v, 12));
    expect(bonferroniAdjust(p)).toEqual([0.04, 0.16, 0.12, 0.8]);
    expect(holmAdjust([])).toEqual([]);
    expect(() => holmAdjust([1.5])).toThrow(/\[0, 1\]/);
  });
});
