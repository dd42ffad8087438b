import { describe, expect, it } from 'vitest';
import {
  bradleyTerryRatings,
  eloExpectedScore,
  fitBradleyTerry,
  type PairResult,
} from '../../src/stats/ratings';

const LOG3_GAP = 400 * Math.log10(3); // 190.848...

function rating(result: ReturnType<typeof bradleyTerryRatings>, team: string) {
  const found = result.ratings.find((r) => r.team === team);
  if (!found) throw new Error(`team ${team} missing`);
  return found;
}

describe('fitBradleyTerry', () => {
  it('puts a team that scores 75% about 400·log10(3) ≈ 191 points higher', () => {
    const { ratings } = fitBradleyTerry([{ a: 'A', b: 'B', winsA: 75, winsB: 25 }]);
    const a = ratings.get('A') as number;
    const b = ratings.get('B') as number;
    expect(LOG3_GAP).toBeCloseTo(190.85, 2);
    expect(Math.abs(a - b - LOG3_GAP)).toBeLessThan(1e-6);
    expect(Math.abs((a + b) / 2 - 1500)).toBeLessThan(1e-9);
    expect(eloExpectedScore(a, b)).toBeCloseTo(0.75, 9);
  });

  it('counts draws as half a win to each side', () => {
    // 70 wins, 20 losses, 10 draws = 75 points of 100.
    const { ratings } = fitBradleyTerry([{ a: 'A', b: 'B', winsA: 70, winsB: 20, draws: 10 }]);
    expect(Math.abs((ratings.get('A') as number) - (ratings.get('B') as number) - LOG3_GAP)).toBeLessThan(1e-6);
    // Listing the pair the other way round, split over two entries, changes nothing.
    const split = fitBradleyTerry([
      { a: 'B', b: 'A', winsA: 10, winsB: 40, draws: 4 },
      { a: 'A', b: 'B', winsA: 30, winsB: 10, draws: 6 },
    ]).ratings;
    expect(Math.abs((split.get('A') as number) - (split.get('B') as number) - LOG3_GAP)).toBeLessThan(1e-6);
  });

  it('solves the likelihood equations: expected points equal actual points', () => {
    const results: PairResult[] = [
      { a: 'A', b: 'B', winsA: 12, winsB: 5, draws: 3 },
      { a: 'B', b: 'C', winsA: 9, winsB: 9, draws: 2 },
      { a: 'C', b: 'A', winsA: 4, winsB: 14 },
      { a: 'D', b: 'A', winsA: 6, winsB: 7, draws: 1 },
      { a: 'D', b: 'C', winsA: 3, winsB: 1 },
    ];
    const { ratings } = fitBradleyTerry(results);
    const points = new Map<string, number>();
    const expected = new Map<string, number>();
    const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
    for (const r of results) {
      const games = r.winsA + r.winsB + (r.draws ?? 0);
      const pA = eloExpectedScore(ratings.get(r.a) as number, ratings.get(r.b) as number);
      add(points, r.a, r.winsA + (r.draws ?? 0) / 2);
      add(points, r.b, r.winsB + (r.draws ?? 0) / 2);
      add(expected, r.a, games * pA);
      add(expected, r.b, games * (1 - pA));
    }
    for (const [team, p] of points) expect(Math.abs((expected.get(team) as number) - p)).toBeLessThan(1e-6);
  });

  it('pins an anchor team at 1500 without changing the gaps', () => {
    const results: PairResult[] = [
      { a: 'A', b: 'B', winsA: 75, winsB: 25 },
      { a: 'B', b: 'C', winsA: 60, winsB: 40 },
    ];
    const free = fitBradleyTerry(results).ratings;
    const anchored = fitBradleyTerry(results, { anchor: 'C' }).ratings;
    expect(anchored.get('C')).toBe(1500);
    const gap = (m: Map<string, number>, x: string, y: string) => (m.get(x) as number) - (m.get(y) as number);
    expect(Math.abs(gap(anchored, 'A', 'C') - gap(free, 'A', 'C'))).toBeLessThan(1e-6);
    // A chain with no A–C games: the gaps add, 400·log10(3) + 400·log10(1.5).
    expect(Math.abs(gap(free, 'A', 'C') - (LOG3_GAP + 400 * Math.log10(1.5)))).toBeLessThan(1e-6);
  });

  it('throws clear errors for unusable structure', () => {
    expect(() => fitBradleyTerry([])).toThrow(/no results/);
    expect(() =>
      fitBradleyTerry([
        { a: 'A', b: 'B', winsA: 3, winsB: 2 },
        { a: 'C', b: 'D', winsA: 0, winsB: 0 },
      ]),
    ).toThrow(/"C", "D" have no games/);
    expect(() =>
      fitBradleyTerry([
        { a: 'A', b: 'B', winsA: 3, winsB: 2 },
        { a: 'C', b: 'D', winsA: 1, winsB: 4 },
      ]),
    ).toThrow(/never played/);
    expect(() => fitBradleyTerry([{ a: 'A', b: 'B', winsA: 5, winsB: 0 }])).toThrow(
      /"A" won every game against teams "B"/,
    );
    expect(() =>
      fitBradleyTerry([
        { a: 'A', b: 'B', winsA: 3, winsB: 1 },
        { a: 'C', b: 'A', winsA: 0, winsB: 4 },
        { a: 'C', b: 'B', winsA: 0, winsB: 2 },
      ]),
    ).toThrow(/"A", "B" won every game against teams "C"/);
    expect(() => fitBradleyTerry([{ a: 'A', b: 'B', winsA: -1, winsB: 3 }])).toThrow(/winsA must not be negative/);
    expect(() => fitBradleyTerry([{ a: 'A', b: 'B', winsA: 1, winsB: 3, draws: 0.5 }])).toThrow(/draws must be a finite integer/);
    expect(() => fitBradleyTerry([{ a: 'A', b: 'A', winsA: 1, winsB: 3 }])).toThrow(/with itself/);
    expect(() => fitBradleyTerry([{ a: 'A', b: 'B', winsA: 1, winsB: 3 }], { anchor: 'Z' })).toThrow(
      /anchor team "Z" does not appear/,
    );
  });
});

describe('bradleyTerryRatings (bootstrap intervals)', () => {
  const results: PairResult[] = [{ a: 'A', b: 'B', winsA: 75, winsB: 25 }];

  it('intervals contain the point estimates and the same seed repeats exactly', () => {
    const first = bradleyTerryRatings(results, { seed: 42 });
    const again = bradleyTerryRatings(results, { seed: 42 });
    expect(again).toEqual(first);
    for (const r of first.ratings) {
      expect(r.lower).toBeLessThan(r.rating);
      expect(r.upper).toBeGreaterThan(r.rating);
      expect(r.unboundedSamples).toBe(0);
    }
    expect(first.ratings.map((r) => r.team)).toEqual(['A', 'B']);
    expect(Math.abs(rating(first, 'A').rating - rating(first, 'B').rating - LOG3_GAP)).toBeLessThan(1e-6);
  });

  it('a different seed gives different intervals', () => {
    // Three teams, so replicate ratings are not confined to a coarse lattice.
    const three: PairResult[] = [
      { a: 'A', b: 'B', winsA: 30, winsB: 10, draws: 5 },
      { a: 'B', b: 'C', winsA: 20, winsB: 20 },
      { a: 'C', b: 'A', winsA: 8, winsB: 12, draws: 10 },
    ];
    const bounds = (seed: number) =>
      bradleyTerryRatings(three, { seed, bootstrapSamples: 200 }).ratings.flatMap((r) => [r.lower, r.upper]);
    expect(bounds(2)).toEqual(bounds(2));
    expect(bounds(3)).not.toEqual(bounds(2));
  });

  it('interval width matches the asymptotic standard error', () => {
    // SE of the logit of 75/100 is 1/√(100·0.75·0.25); each team sits half the gap
    // from the mean, so its rating SE is (400/ln 10)/(2√18.75) ≈ 20.06 points.
    const se = 400 / Math.LN10 / (2 * Math.sqrt(18.75));
    const a = rating(bradleyTerryRatings(results, { seed: 7, bootstrapSamples: 2000 }), 'A');
    const width = a.upper - a.lower;
    expect(Math.abs(width / (2 * 1.959964 * se) - 1)).toBeLessThan(0.15);
  });

  it('reports records and honours an anchor', () => {
    const r = bradleyTerryRatings(
      [
        { a: 'A', b: 'B', winsA: 30, winsB: 10, draws: 5 },
        { a: 'B', b: 'C', winsA: 20, winsB: 20 },
        { a: 'C', b: 'A', winsA: 8, winsB: 12, draws: 10 },
      ],
      { seed: 1, anchor: 'C', bootstrapSamples: 300 },
    );
    const c = rating(r, 'C');
    expect([c.rating, c.lower, c.upper]).toEqual([1500, 1500, 1500]);
    const a = rating(r, 'A');
    expect([a.games, a.wins, a.losses, a.draws]).toEqual([75, 42, 18, 15]);
    expect(a.score).toBeCloseTo(49.5 / 75, 12);
    expect(r.anchor).toBe('C');
    expect(r.bootstrapSamples).toBe(300);
  });

  it('lets a thinly played team have an unbounded interval without spoiling the others', () => {
    const r = bradleyTerryRatings(
      [
        { a: 'A', b: 'B', winsA: 30, winsB: 10, draws: 5 },
        { a: 'B', b: 'C', winsA: 20, winsB: 20 },
        { a: 'C', b: 'A', winsA: 8, winsB: 12, draws: 10 },
        { a: 'D', b: 'A', winsA: 3, winsB: 2 },
      ],
      { seed: 7, anchor: 'C' },
    );
    // D wins all 5 of its games in about 0.6^5 ≈ 8% of replicates: rating +∞ there.
    const d = rating(r, 'D');
    expect(d.upper).toBe(Infinity);
    expect(d.unboundedSamples).toBeGreaterThan(25);
    expect(r.degenerateSamples).toBeGreaterThan(25);
    for (const team of ['A', 'B']) {
      const t = rating(r, team);
      expect(Number.isFinite(t.lower) && Number.isFinite(t.upper)).toBe(true);
      expect(t.lower).toBeLessThan(t.rating);
      expect(t.upper).toBeGreaterThan(t.rating);
    }
  });

  it('validates bootstrap options', () => {
    expect(() => bradleyTerryRatings(results, { seed: 1, bootstrapSamples: 0 })).toThrow(/bootstrapSamples/);
    expect(() => bradleyTerryRatings(results, { seed: 1, confidence: 1 })).toThrow(/confidence/);
    expect(() => bradleyTerryRatings(results, { seed: 1.5 })).toThrow(/seed/);
  });
});

describe('Bradley-Terry under a weak prior (pseudo-draws)', () => {
  // Three teams, one of which never lost: plain maximum likelihood rates it infinitely high.
  const unbeaten: PairResult[] = [
    { a: 'A', b: 'B', winsA: 10, winsB: 0 },
    { a: 'A', b: 'C', winsA: 10, winsB: 0 },
    { a: 'B', b: 'C', winsA: 6, winsB: 4 },
  ];

  it('gives finite ratings and intervals where a team never lost, and says why the plain fit cannot', () => {
    expect(() => bradleyTerryRatings(unbeaten, { seed: 3 })).toThrow(/"A" won every game .* priorDraws/);
    const r = bradleyTerryRatings(unbeaten, { seed: 3, priorDraws: 1, bootstrapSamples: 400 });
    expect(r.separation).toMatch(/"A" won every game against teams "B", "C"/);
    expect(r.priorDraws).toBe(1);
    expect(r.degenerateSamples).toBe(0);
    expect(r.ratings.map((t) => t.team)).toEqual(['A', 'B', 'C']);
    for (const t of r.ratings) {
      expect([t.rating, t.lower, t.upper].every(Number.isFinite)).toBe(true);
      expect(t.lower).toBeLessThanOrEqual(t.rating);
      expect(t.upper).toBeGreaterThanOrEqual(t.rating);
      expect(t.unboundedSamples).toBe(0);
    }
    // The records stay the games played; the pseudo-draws are in no team's record.
    expect(rating(r, 'A')).toMatchObject({ games: 20, wins: 20, losses: 0, draws: 0 });
    // The unbeaten team is clearly ahead, by less than the separation's infinity.
    expect(rating(r, 'A').lower).toBeGreaterThan(rating(r, 'B').rating);
  });

  it('keeps the mean-anchored intervals finite where bootstrap replicates separate', () => {
    // A wins 90%: in about 0.9^20 ≈ 12% of replicates it wins every game, and the plain
    // bootstrap, pinned at the mean, loses every team's bounds to infinity.
    const lopsided: PairResult[] = [
      { a: 'A', b: 'B', winsA: 9, winsB: 1 },
      { a: 'A', b: 'C', winsA: 9, winsB: 1 },
      { a: 'B', b: 'C', winsA: 5, winsB: 5 },
    ];
    const plain = bradleyTerryRatings(lopsided, { seed: 5, bootstrapSamples: 400 });
    expect(plain.ratings.some((t) => !Number.isFinite(t.lower) || !Number.isFinite(t.upper))).toBe(true);
    const prior = bradleyTerryRatings(lopsided, { seed: 5, bootstrapSamples: 400, priorDraws: 1 });
    expect(prior.separation).toBeNull();
    for (const t of prior.ratings) expect(Number.isFinite(t.lower) && Number.isFinite(t.upper)).toBe(true);
  });

  it('moves well-supported ratings only a little, and refuses what no prior mends', () => {
    const results: PairResult[] = [{ a: 'A', b: 'B', winsA: 30, winsB: 20 }];
    const plain = fitBradleyTerry(results).ratings;
    const prior = fitBradleyTerry(results, { priorDraws: 1 }).ratings;
    const gap = (m: Map<string, number>) => m.get('A')! - m.get('B')!;
    // 30.5 of 51 points instead of 30 of 50: 59.8% instead of 60%.
    expect(eloExpectedScore(prior.get('A')!, prior.get('B')!)).toBeCloseTo(30.5 / 51, 9);
    expect(gap(plain) - gap(prior)).toBeGreaterThan(0);
    expect(gap(plain) - gap(prior)).toBeLessThan(2);
    expect(() => fitBradleyTerry([{ a: 'A', b: 'B', winsA: 1, winsB: 1 }, { a: 'C', b: 'D', winsA: 1, winsB: 1 }], { priorDraws: 1 })).toThrow(/never played/);
    expect(() => fitBradleyTerry(results, { priorDraws: -1 })).toThrow(/priorDraws must be a finite number >= 0/);
  });
});
