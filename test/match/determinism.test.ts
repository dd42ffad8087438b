import { describe, expect, it } from 'vitest';
import { Match, runMatch } from '../../src/match';
import { TEST_PLATFORM } from '../helpers/platform';

describe('determinism', () => {
  it.each([
    ['bt-scripted', 'heuristic'],
    ['random', 'bt-scripted'],
  ])('%s vs %s: the same seed gives the same match twice', async (blue, red) => {
    const a = (await runMatch({ blue, red, seed: 4 }, { platform: TEST_PLATFORM, record: false })).summary();
    const b = (await runMatch({ blue, red, seed: 4 }, { platform: TEST_PLATFORM, record: false })).summary();
    expect(b.hash).toBe(a.hash);
    expect(b).toEqual(a);
  });

  it('different seeds give different matches', async () => {
    const hashes = await Promise.all(
      [1, 2, 3, 4, 5].map(async (seed) => (await runMatch({ blue: 'bt-scripted', red: 'heuristic', seed }, { platform: TEST_PLATFORM, record: false })).summary().hash),
    );
    expect(new Set(hashes).size).toBe(hashes.length);
  });

  it('matches played interleaved tick by tick end exactly as when played alone (no shared state)', async () => {
    const specs = [
      { blue: 'bt-scripted', red: 'heuristic', seed: 6 },
      { blue: 'random', red: 'bt-scripted', seed: 7 },
    ] as const;
    const alone = await Promise.all(specs.map(async (s) => (await runMatch(s, { platform: TEST_PLATFORM, record: false })).summary().hash));
    const matches = await Promise.all(specs.map((s) => Match.create(s, { platform: TEST_PLATFORM, record: false })));
    while (matches.some((m) => !m.done)) {
      for (const m of matches) if (!m.done) m.advance();
    }
    expect(matches.map((m) => m.summary().hash)).toEqual(alone);
  });

  it('swapping sides is a different match (the hash covers which team is where)', async () => {
    const a = (await runMatch({ blue: 'bt-scripted', red: 'heuristic', seed: 8 }, { platform: TEST_PLATFORM, record: false })).summary();
    const b = (await runMatch({ blue: 'heuristic', red: 'bt-scripted', seed: 8 }, { platform: TEST_PLATFORM, record: false })).summary();
    expect(a.hash).not.toBe(b.hash);
  });
});
