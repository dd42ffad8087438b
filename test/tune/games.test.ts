/**
 * The round's games (src/tune/games.ts): each game's replay and answers are kept, and a
 * stopped round resumes, taking a whole game's winner from its replay instead of playing it.
 */
import { readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RuleChatClient } from '../../src/llm';
import type { GameRow } from '../../src/llm/node/adapterCard';
import { pairedGames, playSeries, shownBetter } from '../../src/tune/games';
import { llmPlatform } from '../helpers/platform';
import { tempDir } from '../helpers/tempDirs';

const dir = tempDir('series');

describe('playSeries', () => {
  it('keeps every game with its answers, and plays again only the games not whole on disk', async () => {
    const platform = llmPlatform(new RuleChatClient(), { skills: 'scripted', timing: { kind: 'lockstep' } });
    const replays = join(dir, 'play');
    let played = 0;
    const first = await playSeries(platform, 'llm', ['heuristic'], { games: 2, seed: 7, replays, onGame: () => played++ });
    const files = readdirSync(replays).sort();
    expect(files).toEqual(['game-heuristic-0000.asked.json', 'game-heuristic-0000.json', 'game-heuristic-0001.asked.json', 'game-heuristic-0001.json']);
    expect(played).toBe(2);

    // The second game's replay was cut short: only it is played again; the first is read back
    // (its outcome, changed here, is what the row counts: it was not played again).
    const kept = join(replays, 'game-heuristic-0000.json');
    const replay = JSON.parse(readFileSync(kept, 'utf8')) as { outcome: string };
    const other = replay.outcome === 'draw' ? 'blue' : 'draw';
    writeFileSync(kept, JSON.stringify({ ...replay, outcome: other }));
    const keptAt = statSync(kept).mtimeMs;
    writeFileSync(join(replays, 'game-heuristic-0001.json'), '{"truncated":');
    const again = await playSeries(platform, 'llm', ['heuristic'], { games: 2, seed: 7, replays });
    expect(statSync(kept).mtimeMs).toBe(keptAt);
    expect(statSync(join(replays, 'game-heuristic-0001.json')).size).toBeGreaterThan(100);
    // Each game's result, in the plan's order, adds up to the row's counts.
    const row = again[0]!;
    expect(row.outcomes).toHaveLength(2);
    expect([...row.outcomes!].filter((o) => o === 'W').length).toBe(row.wins);
    expect([...row.outcomes!].filter((o) => o === 'D').length).toBe(row.draws);
    expect(row.outcomes![0]).toBe(other === 'draw' ? 'D' : 'W');
    const drawsOf = (rows: typeof first) => rows[0]!.draws;
    expect(drawsOf(again) - drawsOf(first)).toBe(other === 'draw' ? 1 : -1);

    // A replay without its answers, or of another seed, is played again.
    rmSync(join(replays, 'game-heuristic-0000.asked.json'));
    await playSeries(platform, 'llm', ['heuristic'], { games: 2, seed: 7, replays });
    expect(statSync(kept).mtimeMs).toBeGreaterThan(keptAt);
    const replayed = statSync(kept).mtimeMs;
    await playSeries(platform, 'llm', ['heuristic'], { games: 1, seed: 8, replays });
    expect(statSync(kept).mtimeMs).toBeGreaterThan(replayed);
  }, 120_000);
});

describe('pairedGames', () => {
  const row = (opponent: string, outcomes: string): GameRow => ({
    opponent,
    games: outcomes.length,
    wins: [...outcomes].filter((o) => o === 'W').length,
    losses: [...outcomes].filter((o) => o === 'L').length,
    draws: [...outcomes].filter((o) => o === 'D').length,
    winRate: { estimate: 0, lower: 0, upper: 1 },
    decisiveShare: null,
    outcomes,
  });

  it('compares two adapters game by game, a draw half a win, and keeps the one after play only where it is shown better', () => {
    // More wins in all, but game by game 2 better and 1 worse: not shown better.
    const before = [row('flat', 'WWWW'), row('bt', 'LLLW')];
    const after = [row('flat', 'WWWW'), row('bt', 'WDLL')];
    expect(pairedGames(before, after)).toMatchObject({ games: 8, better: 2, worse: 1 });
    expect(shownBetter(pairedGames(before, after))).toBe(false);
    // Better in 6 of 6 games that differ: p = 2 / 64.
    const won = pairedGames([row('bt', 'LLLLLLWW')], [row('bt', 'WWWWDDWW')]);
    expect(won).toMatchObject({ games: 8, better: 6, worse: 0 });
    expect(won.p).toBeCloseTo(2 / 64, 10);
    expect(shownBetter(won)).toBe(true);
    // Worse in every game: never kept, however small p is.
    expect(shownBetter(pairedGames([row('bt', 'WWWWWWWW')], [row('bt', 'LLLLLLLL')]))).toBe(false);
  });

  it('refuses games that were not played alike by both', () => {
    expect(() => pairedGames([row('bt', 'WW')], [row('bt', 'WWW')])).toThrow(/against bt were not played alike/);
    expect(() => pairedGames([row('flat', 'WW')], [row('bt', 'WW')])).toThrow(/against bt/);
  });
});
