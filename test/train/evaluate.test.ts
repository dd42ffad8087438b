/**
 * The games of npm run evaluate (src/train/evaluate.ts): the Wilson summary of a win rate
 * and of each team's K/D and accuracy, the five matchups and their targets at the bounds,
 * the plan that swaps sides, what each model card receives, and a tiny real run of winRate.
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
  type CombatTally,
  type GamePlayed,
  type WinRate,
  cardEvaluation,
  countWins,
  describeCombat,
  describeGame,
  gameFigures,
  summarizeCombat,
  tallyCombat,
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

const tally = (kills: number, deaths: number, shots: number, hits: number, agentEpisodes = 2): CombatTally => ({ kills, deaths, shots, hits, agentEpisodes });
/** A win rate with flat's fighting (first or second) and its opponent's. */
const fought = (r: WinRate, first: CombatTally, second: CombatTally): WinRate => ({ ...r, combat: { first, second } });

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
  it('are bt vs bt-scripted, bt vs flat, flat vs heuristic, flat vs random, planner vs bt and flat vs bt-scripted, each with a target in words', () => {
    expect(GAME_MATCHUPS.map((m) => [m.key, m.first, m.second])).toEqual([
      ['bt_vs_bt_scripted', 'bt', 'bt-scripted'],
      ['bt_vs_flat', 'bt', 'flat'],
      ['flat_vs_heuristic', 'flat', 'heuristic'],
      ['flat_vs_random', 'flat', 'random'],
      ['planner_vs_bt', 'planner', 'bt'],
      ['flat_vs_bt_scripted', 'flat', 'bt-scripted'],
    ]);
    for (const m of GAME_MATCHUPS) expect(m.target.description).toContain(m.first);
  });

  it('planner vs bt: met from exactly 65% of the decisive games, draws left out', () => {
    const { met } = matchup('planner_vs_bt').target;
    expect(met(summarizeWinRate(rate('planner', 'bt', 13, 7, 30)))).toBe(true);
    expect(met(summarizeWinRate(rate('planner', 'bt', 12, 7, 30)))).toBe(false);
    expect(met(summarizeWinRate(rate('planner', 'bt', 0, 0, 10)))).toBe(false);
  });

  it('bt vs bt-scripted: met from exactly 40% of the decisive games, draws left out', () => {
    const { met } = matchup('bt_vs_bt_scripted').target;
    expect(met(rate('bt', 'bt-scripted', 2, 3, 95))).toBe(true); // 40% of 5 decisive, 2% of all games
    expect(met(rate('bt', 'bt-scripted', 40, 60, 0))).toBe(true);
    expect(met(rate('bt', 'bt-scripted', 39, 61, 0))).toBe(false);
    expect(met(rate('bt', 'bt-scripted', 79, 121, 0))).toBe(false); // 39.5%
    expect(met(rate('bt', 'bt-scripted', 0, 0, 10))).toBe(false); // no decisive game: nothing shown
  });

  it('bt vs flat: bt must win the matchup, and flat win at least 10% of the games or fight at K/D 1.0 or better', () => {
    const { met } = matchup('bt_vs_flat').target;
    const even = tally(10, 10, 100, 50);
    const behind = tally(9, 10, 100, 50);
    expect(met(fought(rate('bt', 'flat', 15, 2, 3), tally(10, 10, 50, 40), behind))).toBe(true); // flat wins exactly 10%
    expect(met(fought(rate('bt', 'flat', 16, 1, 3), tally(10, 10, 50, 40), even))).toBe(true); // 5% wins, K/D exactly 1
    expect(met(fought(rate('bt', 'flat', 16, 1, 3), tally(10, 9, 50, 40), behind))).toBe(false); // 5% wins, K/D 0.9
    expect(met(rate('bt', 'flat', 16, 1, 3))).toBe(false); // 5% wins and no fighting figures to show a K/D
    expect(met(fought(rate('bt', 'flat', 10, 10, 0), tally(5, 20, 50, 40), tally(20, 5, 50, 40)))).toBe(false); // bt does not win the matchup
    expect(met(fought(rate('bt', 'flat', 20, 0, 0), tally(0, 0, 0, 0), tally(0, 0, 0, 0)))).toBe(false); // no kills: K/D shows nothing
  });

  it('flat vs heuristic: 90% wins, at most 10% draws, K/D 2 and 50% accuracy, each bound included', () => {
    const { met } = matchup('flat_vs_heuristic').target;
    const heuristic = tally(10, 20, 300, 100);
    const flat = tally(20, 10, 100, 50); // K/D exactly 2, accuracy exactly 50%
    expect(met(fought(rate('flat', 'heuristic', 18, 0, 2), flat, heuristic))).toBe(true); // exactly 90% wins and 10% draws
    expect(met(fought(rate('flat', 'heuristic', 17, 1, 2), flat, heuristic))).toBe(false); // 85% wins
    expect(met(fought(rate('flat', 'heuristic', 179, 0, 21), flat, heuristic))).toBe(false); // 10.5% draws
    expect(met(fought(rate('flat', 'heuristic', 18, 0, 2), tally(19, 10, 100, 50), heuristic))).toBe(false); // K/D 1.9
    expect(met(fought(rate('flat', 'heuristic', 18, 0, 2), tally(20, 10, 101, 50), heuristic))).toBe(false); // accuracy under 50%
    expect(met(rate('flat', 'heuristic', 20, 0, 0))).toBe(false); // wins alone do not show the fighting
  });

  it('flat vs random: more flat wins than random wins; flat vs bt-scripted: 10% wins or K/D 1.0', () => {
    const random = matchup('flat_vs_random').target.met;
    expect(random(rate('flat', 'random', 6, 5, 100))).toBe(true);
    expect(random(rate('flat', 'random', 5, 5, 0))).toBe(false);
    const bt = matchup('flat_vs_bt_scripted').target.met;
    expect(bt(rate('flat', 'bt-scripted', 2, 15, 3))).toBe(true);
    expect(bt(fought(rate('flat', 'bt-scripted', 1, 16, 3), tally(10, 10, 50, 20), tally(10, 10, 50, 20)))).toBe(true);
    expect(bt(fought(rate('flat', 'bt-scripted', 1, 16, 3), tally(9, 10, 50, 20), tally(10, 9, 50, 20)))).toBe(false);
  });
});

describe('fighting: tallyCombat and summarizeCombat', () => {
  it("sums each team's agents by the side it played in each game", () => {
    const games = planGames('flat', 'heuristic', 2);
    const agent = (team: 'blue' | 'red', kills: number, deaths: number, shots: number, hits: number) => ({ team, kills, deaths, shots, hits });
    const played: GamePlayed[] = [
      { winner: 'blue', agents: [agent('blue', 2, 0, 10, 6), agent('blue', 1, 1, 8, 4), agent('red', 0, 2, 20, 3), agent('red', 1, 1, 5, 1)] },
      // Sides swapped: flat is red.
      { winner: 'red', agents: [agent('blue', 0, 1, 30, 2), agent('blue', 0, 0, 1, 0), agent('red', 1, 0, 4, 4), agent('red', 0, 0, 0, 0)] },
    ];
    expect(tallyCombat(games, played)).toEqual({ first: tally(4, 1, 22, 14, 4), second: tally(1, 4, 56, 6, 4) });
    expect(gameFigures('flat', 'heuristic', games, played)).toEqual({ ...rate('flat', 'heuristic', 2, 0, 0), combat: { first: tally(4, 1, 22, 14, 4), second: tally(1, 4, 56, 6, 4) } });
    expect(() => tallyCombat(games, played.slice(1))).toThrow(/2 games planned but 1 played/);
  });

  it('gives accuracy a Wilson interval and K/D the interval of kills among kills and deaths, as odds', () => {
    const c = summarizeCombat(tally(60, 30, 200, 110, 40));
    expect(c.kd).toBe(2);
    const share = wilsonInterval(60, 90);
    expect(c.kdInterval!.lower).toBeCloseTo(share.lower / (1 - share.lower), 12);
    expect(c.kdInterval!.upper).toBeCloseTo(share.upper / (1 - share.upper), 12);
    expect(c.kdInterval!.lower).toBeLessThan(2);
    expect(c.kdInterval!.upper).toBeGreaterThan(2);
    expect(c.accuracy).toEqual(wilsonInterval(110, 200));
    expect(c.shotsPerAgentEpisode).toBe(5);
    // No deaths: no K/D, and the upper bound is unbounded (null, so a card stays JSON).
    const flawless = summarizeCombat(tally(5, 0, 0, 0, 4));
    expect([flawless.kd, flawless.kdInterval!.upper, flawless.accuracy]).toEqual([null, null, null]);
    expect(summarizeCombat(tally(0, 0, 0, 0, 0)).kdInterval).toBeNull();
    expect(describeCombat(c)).toMatch(/^K\/D 2\.00 \[\d\.\d\d, \d\.\d\d\] \(60 kills, 30 deaths\), accuracy 55\.0% \[\d+\.\d, \d+\.\d\] of 200 shots, 5\.0 shots per agent-episode$/);
    expect(describeCombat(flawless)).toBe('K/D no deaths (5 kills, 0 deaths), accuracy no shots, 0.0 shots per agent-episode');
  });

  it('summarizeWinRate carries both teams\' fighting when the games kept it', () => {
    const s = summarizeWinRate(fought(rate('flat', 'heuristic', 8, 1, 1), tally(12, 4, 40, 24), tally(4, 12, 60, 12)));
    expect(s.firstCombat).toEqual(summarizeCombat(tally(12, 4, 40, 24)));
    expect(s.secondCombat).toEqual(summarizeCombat(tally(4, 12, 60, 12)));
    expect(summarizeWinRate(rate('flat', 'heuristic', 8, 1, 1)).firstCombat).toBeUndefined();
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
    expect(Object.keys(evaluation)).toEqual(['scenario', 'rl', 'scripted', 'episodes', 'bt_vs_bt_scripted', 'bt_vs_flat', 'planner_vs_bt', 'command']);
    expect(evaluation).toMatchObject({ scenario: 'kills per death vs heuristic', rl: 3, scripted: 2.5, episodes: 20, command: 'npm run evaluate -- --episodes 20 --write' });
    const btVsFlat = evaluation.bt_vs_flat as Record<string, unknown>;
    expect(btVsFlat).toMatchObject({ first: 'bt', second: 'flat', firstWins: 11, secondWins: 5, draws: 5, confidence: 0.95, firstWin: wilsonInterval(11, 21, 0.95) });
    expect(btVsFlat.target).toBe(matchup('bt_vs_flat').target.description);
    expect(btVsFlat.targetMet).toBe(true); // bt wins the matchup 11 to 5, and flat's 5 of 21 games are over 10%
    expect((evaluation.bt_vs_bt_scripted as Record<string, unknown>).targetMet).toBe(true); // 10 of 15 decisive
    // Plain JSON: what a card stores survives a round trip unchanged.
    expect(JSON.parse(JSON.stringify(evaluation))).toEqual(evaluation);
  });

  it('the flat card gets its four games with both teams\' fighting, and no scenario figures', async () => {
    const games = (await results()).map((g) => ({ ...g, summary: summarizeWinRate(fought(g.summary, tally(30, 10, 100, 60), tally(10, 30, 200, 40))) }));
    const evaluation = cardEvaluation('flat', undefined, games, 20, 'cmd');
    expect(Object.keys(evaluation)).toEqual(['episodes', 'bt_vs_flat', 'flat_vs_heuristic', 'flat_vs_random', 'flat_vs_bt_scripted', 'command']);
    const vsHeuristic = evaluation.flat_vs_heuristic as Record<string, unknown>;
    expect(vsHeuristic.targetMet).toBe(false); // 12 of 22 games: short of 90%
    expect(vsHeuristic.firstCombat).toEqual(summarizeCombat(tally(30, 10, 100, 60)));
    expect(JSON.parse(JSON.stringify(evaluation))).toEqual(evaluation);
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
    // Each team's fighting is kept: two agents a side in each of the two games.
    expect([r.combat?.first.agentEpisodes, r.combat?.second.agentEpisodes]).toEqual([4, 4]);
    expect(r.combat!.first.hits).toBeLessThanOrEqual(r.combat!.first.shots);
  });
});
