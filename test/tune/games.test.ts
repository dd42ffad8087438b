/**
 * The round's games (src/tune/games.ts): each game's replay and answers are kept, and a
 * stopped round resumes, taking a whole game's winner from its replay instead of playing it.
 */
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
    const written = statSync(join(replays, 'game-heuristic-0000.json')).mtimeMs;

    // The second game's replay was cut short: only it is played again; the first is read back.
    writeFileSync(join(replays, 'game-heuristic-0001.json'), '{"truncated":');
    const again = await playSeries(platform, 'llm', ['heuristic'], { games: 2, seed: 7, replays });
    expect(again).toEqual(first);
    expect(statSync(join(replays, 'game-heuristic-0000.json')).mtimeMs).toBe(written);
    expect(statSync(join(replays, 'game-heuristic-0001.json')).size).toBeGreaterThan(100);
  }, 120_000);
});
