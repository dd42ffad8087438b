/**
 * The games of npm run evaluate (src/train/evaluate.ts): the Wilson summary of a win rate,
 * the three matchups and their targets at the bounds, the plan that swaps sides, what each
 * model card receives, and a tiny real run of winRate.
 */
import { describe, expect, it } from 'vitest';
import { runMatch } from '../../src/match/match';
import { SKILL_IDS } from '../../src/skills';
import { wilsonInterval } from '../../src/stats';
import {
  CONFIDENCE,
  GAME_MATCHUPS,
  type GameMatchup,
  type GameResult,
  type SkillComparison,
  type WinRate,
  cardEvaluation,
  countWins,
  describeGame,
  matchupModels,
  planGames,
  summarizeWinRate,
  winRate,
} from '../../src/train/evaluate';
import { TEST_PLATFORM } from '../helpers/platform';

const rate = (first: string, second: string, firstWins: number, secondWins: number, draws: number): WinRate => ({
  first,
  second,
  episodes: firstWins + secondWins + draws,
  firstWins,
  secondWins,
  draws,
});

function matchup(key: string): GameMatchup {
  const found = GAME_MATCHUPS.find((m) => m.key === key);
  if (!found) throw new Error(`no matchup ${key}`);
  return found;
}

describe('summarizeWinRate', () => {
  it('gives the Wilson 95% interval of each share, and of first among the decisive games', () => {
    const s = summarizeWinRate(rate('bt', 'flat', 37, 12, 11));
    expect(s.confidence).toBe(0.95);
    expect(CONFIDENCE).toBe(0.95);
    expect(s.firstWin).toEqual(wilsonInterval(37, 60, 0.95));
    expect(s.secondWin).toEqual(wilsonInterval(12, 60, 0.95));
    expect(s.draw).toEqual(wilsonInterval(11, 60, 0.95));
    expect(s.decisive).toBe(49);
    expect(s.firstShareOfDecisive).toEqual(wilsonInterval(37, 49, 0.95));
    // The counts stay beside the intervals, so a card can be checked by hand.
    expect([s.first, s.second, s.episodes, s.firstWins, s.secondWins, s.draws]).toEqual(['bt', 'flat', 60, 37, 12, 11]);
    // A sanity anchor independent of wilsonInterval: 37/60 lies inside its interval, which is narrower than ±15 points.
    expect(s.firstWin.lower).toBeLessThan(37 / 60);
    expect(s.firstWin.upper).toBeGreaterThan(37 / 60);
    expect(s.firstWin.upper - s.firstWin.lower).toBeLessThan(0.3);
  });

  it('takes another confidence when asked', () => {
    expect(summarizeWinRate(rate('a', 'b', 3, 4, 5), 0.9).firstWin).toEqual(wilsonInterval(3, 12, 0.9));
  });

  it('has no decisive share when every game was a draw', () => {
    const s = summarizeWinRate(rate('bt', 'flat', 0, 0, 8));
    expect(s.decisive).toBe(0);
    expect(s.firstShareOfDecisive).toBeNull();
    expect(s.draw).toEqual(wilsonInterval(8, 8, 0.95));
  });

  it('refuses counts that do not add up to the games, and a matchup with no games', () => {
    expect(() => summarizeWinRate({ ...rate('bt', 'flat', 3, 2, 1), episodes: 7 })).toThrow(/bt vs flat: 3 wins \+ 2 losses \+ 1 draws is not the 7 games played/);
    expect(() => summarizeWinRate(rate('bt', 'flat', 0, 0, 0))).toThrow(/bt vs flat: no games/);
  });
});

describe('GAME_MATCHUPS', () => {
  it('are bt vs bt-scripted, bt vs flat and flat vs heuristic, each with a target in words', () => {
    expect(GAME_MATCHUPS.map((m) => [m.key, m.first, m.second])).toEqual([
      ['bt_vs_bt_scripted', 'bt', 'bt-scripted'],
      ['bt_vs_flat', 'bt', 'flat'],
      ['flat_vs_heuristic', 'flat', 'heuristic'],
    ]);
    for (const m of GAME_MATCHUPS) expect(m.target.description).toContain(m.first);
  });

  it('bt vs bt-scripted: met from exactly 40% of the decisive games, draws left out', () => {
    const { met } = matchup('bt_vs_bt_scripted').target;
    expect(met(rate('bt', 'bt-scripted', 2, 3, 95))).toBe(true); // 40% of 5 decisive, 2% of all games
    expect(met(rate('bt', 'bt-scripted', 40, 60, 0))).toBe(true);
    expect(met(rate('bt', 'bt-scripted', 39, 61, 0))).toBe(false);
    expect(met(rate('bt', 'bt-scripted', 79, 121, 0))).toBe(false); // 39.5%
    expect(met(rate('bt', 'bt-scripted', 0, 0, 10))).toBe(false); // no decisive game: nothing shown
  });

  it('bt vs flat: met from 55% bt wins with at most 25% draws, both bounds included', () => {
    const { met } = matchup('bt_vs_flat').target;
    expect(met(rate('bt', 'flat', 11, 4, 5))).toBe(true); // exactly 55% and 25% of 20
    expect(met(rate('bt', 'flat', 110, 40, 50))).toBe(true); // the same of 200
    expect(met(rate('bt', 'flat', 109, 41, 50))).toBe(false); // 54.5% wins
    expect(met(rate('bt', 'flat', 110, 39, 51))).toBe(false); // 25.5% draws
    expect(met(rate('bt', 'flat', 20, 0, 0))).toBe(true);
  });

  it('flat vs heuristic: met only with more flat wins than heuristic wins', () => {
    const { met } = matchup('flat_vs_heuristic').target;
    expect(met(rate('flat', 'heuristic', 6, 5, 100))).toBe(true);
    expect(met(rate('flat', 'heuristic', 5, 5, 0))).toBe(false);
    expect(met(rate('flat', 'heuristic', 0, 0, 10))).toBe(false);
    expect(met(rate('flat', 'heuristic', 4, 5, 0))).toBe(false);
  });
});

describe('planGames and countWins', () => {
  it('swap sides every other game, each game with its own seed', () => {
    const games = planGames('bt', 'flat', 4, 11);
    expect(games.map((g) => [g.index, g.blue, g.red, g.firstIsBlue])).toEqual([
      [0, 'bt', 'flat', true],
      [1, 'flat', 'bt', false],
      [2, 'bt', 'flat', true],
      [3, 'flat', 'bt', false],
    ]);
    expect(new Set(games.map((g) => g.seed)).size).toBe(4);
    expect(planGames('bt', 'flat', 4, 12).map((g) => g.seed)).not.toEqual(games.map((g) => g.seed));
  });

  it("count a win by the side first played: red wins first's when first was red", () => {
    const games = planGames('bt', 'flat', 4);
    expect(countWins('bt', 'flat', games, ['blue', 'red', 'red', 'draw'])).toEqual(rate('bt', 'flat', 2, 1, 1));
    expect(countWins('bt', 'flat', games, ['blue', 'blue', 'blue', 'blue'])).toEqual(rate('bt', 'flat', 2, 2, 0));
    expect(() => countWins('bt', 'flat', games, ['blue'])).toThrow(/bt vs flat: 4 games planned but 1 results/);
  });
});

describe('what the model cards receive', () => {
  it('matchupModels reads the teams\' declared models: bt the four skills, flat its own', async () => {
    expect((await matchupModels(matchup('bt_vs_bt_scripted'), TEST_PLATFORM)).sort()).toEqual([...SKILL_IDS].sort());
    expect((await matchupModels(matchup('bt_vs_flat'), TEST_PLATFORM)).sort()).toEqual([...SKILL_IDS, 'flat'].sort());
    expect(await matchupModels(matchup('flat_vs_heuristic'), TEST_PLATFORM)).toEqual(['flat']);
  });

  const results = async (): Promise<GameResult[]> =>
    Promise.all(
      GAME_MATCHUPS.map(async (m, i) => ({ matchup: m, summary: summarizeWinRate(rate(m.first, m.second, 10 + i, 5, 5)), models: await matchupModels(m, TEST_PLATFORM) })),
    );
  const combat: SkillComparison = {
    skill: 'combat',
    rl: { measure: 'kills per death vs heuristic', unit: 'K/D', lowerIsBetter: false, value: 3, episodes: 20 },
    scripted: { measure: 'kills per death vs heuristic', unit: 'K/D', lowerIsBetter: false, value: 2.5, episodes: 20 },
  };

  it("a skill card keeps its scenario figures and gets bt's two games with their intervals and targets", async () => {
    const games = await results();
    const evaluation = cardEvaluation('combat', combat, games, 20, 'npm run evaluate -- --episodes 20 --write');
    expect(Object.keys(evaluation)).toEqual(['scenario', 'rl', 'scripted', 'episodes', 'bt_vs_bt_scripted', 'bt_vs_flat', 'command']);
    expect(evaluation).toMatchObject({ scenario: 'kills per death vs heuristic', rl: 3, scripted: 2.5, episodes: 20, command: 'npm run evaluate -- --episodes 20 --write' });
    const btVsFlat = evaluation.bt_vs_flat as Record<string, unknown>;
    expect(btVsFlat).toMatchObject({ first: 'bt', second: 'flat', firstWins: 11, secondWins: 5, draws: 5, confidence: 0.95, firstWin: wilsonInterval(11, 21, 0.95) });
    expect(btVsFlat.target).toBe(matchup('bt_vs_flat').target.description);
    expect(btVsFlat.targetMet).toBe(false); // 11 of 21 is 52%
    expect((evaluation.bt_vs_bt_scripted as Record<string, unknown>).targetMet).toBe(true); // 10 of 15 decisive
    // Plain JSON: what a card stores survives a round trip unchanged.
    expect(JSON.parse(JSON.stringify(evaluation))).toEqual(evaluation);
  });

  it('the flat card gets flat vs heuristic and bt vs flat, and no scenario figures', async () => {
    const evaluation = cardEvaluation('flat', undefined, await results(), 20, 'cmd');
    expect(Object.keys(evaluation)).toEqual(['episodes', 'bt_vs_flat', 'flat_vs_heuristic', 'command']);
    expect((evaluation.flat_vs_heuristic as Record<string, unknown>).targetMet).toBe(true);
  });
});

describe('describeGame', () => {
  it('prints W / L / D with intervals, the decisive share, and the target met or not met', () => {
    const m = matchup('bt_vs_bt_scripted');
    const [line, decisive, target] = describeGame(m, summarizeWinRate(rate('bt', 'bt-scripted', 2, 3, 95)));
    const w = wilsonInterval(2, 100);
    expect(line).toContain(`bt vs bt-scripted: 2.0% [${(100 * w.lower).toFixed(1)}, ${(100 * w.upper).toFixed(1)}] / 3.0% [`);
    expect(line).toMatch(/^bt vs bt-scripted: 2\.0% \[\d+\.\d, \d+\.\d\] \/ 3\.0% \[\d+\.\d, \d+\.\d\] \/ 95\.0% \[\d+\.\d, \d+\.\d\] {2}\(bt wins \/ bt-scripted wins \/ draws of 100 games, 95% Wilson intervals\)$/);
    expect(decisive).toMatch(/^ {2}bt's share of the decisive games: 40\.0% \[\d+\.\d, \d+\.\d\] of 5$/);
    expect(target).toBe(`  target: ${m.target.description}: met`);
    expect(describeGame(m, summarizeWinRate(rate('bt', 'bt-scripted', 0, 0, 4)))).toEqual([
      expect.any(String),
      "  bt's share of the decisive games: none (every game a draw)",
      `  target: ${m.target.description}: not met`,
    ]);
  });
});

describe('winRate, played for real', () => {
  it('plays 2 games with sides swapped, and its counts add up to what the games gave', async () => {
    const r = await winRate(TEST_PLATFORM, 'flat', 'heuristic', 2, 11);
    expect(r.first).toBe('flat');
    expect(r.second).toBe('heuristic');
    expect(r.episodes).toBe(2);
    expect(r.firstWins + r.secondWins + r.draws).toBe(2);
    // The same games played here, the winner named by the team the match put on its side
    // (not by the plan's firstIsBlue), so a game played or counted on the wrong side shows.
    const expected = { firstWins: 0, secondWins: 0, draws: 0 };
    const sides: string[] = [];
    for (const game of planGames('flat', 'heuristic', 2, 11)) {
      const summary = (await runMatch({ blue: game.blue, red: game.red, seed: game.seed }, { platform: TEST_PLATFORM, record: false })).summary();
      sides.push(summary.blue);
      if (summary.winner === 'draw') expected.draws++;
      else if (summary[summary.winner] === 'flat') expected.firstWins++;
      else expected.secondWins++;
    }
    expect(sides).toEqual(['flat', 'heuristic']);
    expect({ firstWins: r.firstWins, secondWins: r.secondWins, draws: r.draws }).toEqual(expected);
  });
});
