import { describe, expect, it } from 'vitest';
import { parseReplay, runMatch, verifyReplay } from '../../src/match';
import { DEFAULT_CONFIG } from '../../src/sim';
import { TEST_PLATFORM } from '../helpers/platform';
import { threePerTeam } from '../helpers/world';

const THREE = threePerTeam();

describe('3v3 matches with the scripted teams', () => {
  it.each([
    ['bt-scripted', 'heuristic', 11],
    ['random', 'bt-scripted', 12],
  ])('%s vs %s plays to the end with every agent controlled, deterministically, and its replay verifies', async (blue, red, seed) => {
    const match = await runMatch({ blue, red, seed, config: THREE }, { platform: TEST_PLATFORM });
    expect(match.done).toBe(true);
    const summary = match.summary();
    expect(summary.agents.map((a) => a.team)).toEqual(['blue', 'blue', 'blue', 'red', 'red', 'red']);

    const replay = match.replay();
    expect(replay.config.agent.perTeam).toBe(3);
    // Every agent, the third of each team included, was driven (moved or turned) at some point.
    for (const agent of [0, 1, 2, 3, 4, 5]) {
      expect(replay.actions.some((r) => r[1] === agent && (r[2] !== 0 || r[3] !== 0)), `agent ${agent}`).toBe(true);
    }
    // Strategists decide for all three agents of their team.
    expect(replay.decisions.length).toBeGreaterThan(0);
    for (const d of replay.decisions) expect(d.skills).toHaveLength(3);

    const again = (await runMatch({ blue, red, seed, config: THREE }, { platform: TEST_PLATFORM, record: false })).summary();
    expect(again.hash).toBe(summary.hash);
    expect(again).toEqual(summary);

    expect(verifyReplay(replay)).toMatchObject({ ok: true, expectedHash: summary.hash, actualHash: summary.hash, ticks: summary.ticks });
    expect(verifyReplay(parseReplay(JSON.stringify(replay))).ok).toBe(true);

    const twoVsTwo = (await runMatch({ blue, red, seed }, { platform: TEST_PLATFORM, record: false })).summary();
    expect(twoVsTwo.hash).not.toBe(summary.hash);
  });

  it('a team size without enough spawn points is refused, naming the missing one', async () => {
    const config = { ...DEFAULT_CONFIG, agent: { ...DEFAULT_CONFIG.agent, perTeam: 3 } };
    await expect(runMatch({ blue: 'bt-scripted', red: 'heuristic', seed: 1, config }, { platform: TEST_PLATFORM })).rejects.toThrow('config has no spawn point for team blue slot 2');
  });
});
