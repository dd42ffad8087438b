/**
 * The round's games (src/tune/games.ts): each game's replay and answers are kept, and a
 * stopped round resumes, taking a whole game's winner from its replay instead of playing it.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RuleChatClient } from '../../src/llm';
import { playSeries } from '../../src/tune/games';
import { llmPlatform } from '../helpers/platform';

const dir = mkdtempSync(join(tmpdir(), 'hillmind-series-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
