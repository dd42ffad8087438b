/**
 * The fixed team: one constant skill per agent all match long, the plan named by its
 * variant, refused clearly when the plan does not fit the team; its replays verify.
 */
import { describe, expect, it } from 'vitest';
import { runMatch, verifyReplayWithModels } from '../../src/match';
import { resolveTeam } from '../../src/teams';
import { TEST_PLATFORM } from '../helpers/platform';

describe('fixed team', () => {
  it('plays its plan from the first tick to the last, deciding once', async () => {
    const match = await runMatch({ blue: 'fixed:skills=secure+retreat', red: 'bt-scripted', seed: 4 }, { platform: TEST_PLATFORM });
    const summary = match.summary();
    const blue = summary.agents.filter((a) => a.team === 'blue');
    expect(Object.keys(blue[0]!.skillSeconds)).toEqual(['secure']);
    expect(Object.keys(blue[1]!.skillSeconds)).toEqual(['retreat']);
    expect(summary.decisions.blue).toBe(1);
    const replay = match.replay();
    expect(replay.decisions.filter((d) => d.team === 0)).toEqual([{ tick: 0, team: 0, skills: ['secure', 'retreat'], source: 'rule' }]);
    const verified = await verifyReplayWithModels(replay, { models: TEST_PLATFORM.models });
    expect(verified.ok).toBe(true);
    expect(verified.sides.blue).toEqual({ checked: true, how: 'trained skills', decisions: 'derived again' });
  });

  it('secures and guards when no plan is named', async () => {
    const match = await runMatch({ blue: 'bt-scripted', red: 'fixed', seed: 5 }, { platform: TEST_PLATFORM });
    expect(match.replay().decisions.find((d) => d.team === 1)!.skills).toEqual(['secure', 'combat']);
  });

  it('refuses a plan of unknown skills or of the wrong size, saying what it takes', async () => {
    expect(() => resolveTeam('fixed:skills=secure+hide')).toThrow(/skills: must be one skill per agent joined by '\+', each one of navigate, combat, secure, retreat/);
    await expect(runMatch({ blue: 'fixed:skills=secure', red: 'heuristic', seed: 1 }, { platform: TEST_PLATFORM })).rejects.toThrow(
      /skills=secure names 1 skills; this match has 2 agents per team/,
    );
  });
});
