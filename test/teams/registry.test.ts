import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/sim';
import { TEAM_IDS, createPlatform, createTeam, isTeamId, teamAvailability, teamEntries, teamEntry } from '../../src/teams';
import { TEST_PLATFORM } from '../helpers/platform';

/** No models, no language model, no person: only the scripted teams can play. */
const bare = createPlatform();
const ctx = { team: 1 as const, seed: 3, config: DEFAULT_CONFIG, platform: bare };

describe('team registry', () => {
  it('lists the documented team ids, each with a description', () => {
    expect([...TEAM_IDS].sort()).toEqual(['bt', 'bt-scripted', 'fixed', 'flat', 'heuristic', 'human', 'llm', 'planner', 'random']);
    expect(teamEntries().map((e) => e.id)).toEqual([...TEAM_IDS]);
    for (const e of teamEntries()) expect(e.description.length).toBeGreaterThan(10);
    expect(isTeamId('bt-scripted')).toBe(true);
    expect(isTeamId('BT-SCRIPTED')).toBe(false);
  });

  it('an unknown id throws an error naming it and listing the valid ids', async () => {
    for (const call of [() => teamEntry('nope'), () => createTeam('nope', ctx)]) {
      let message = '';
      try {
        await call();
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/unknown team id 'nope'/);
      for (const id of TEAM_IDS) expect(message).toContain(id);
    }
  });

  it.each(['flat', 'bt', 'llm', 'human'])("'%s' is refused with a clear 'not available' error, and the probe says why without building it", async (id) => {
    await expect(createTeam(id, ctx)).rejects.toThrow(new RegExp(`team '${id}' is not available: \\S`));
    const probe = await teamAvailability(id, bare);
    expect(probe.ok).toBe(false);
    expect(probe.ok ? '' : probe.reason).toMatch(/\S/);
  });

  it('declares what each team needs: models by name, a language model, a person', async () => {
    const needs = Object.fromEntries(await Promise.all(TEAM_IDS.map(async (id) => [id, await teamEntry(id).needs(TEST_PLATFORM, { name: id, settings: {} })] as const)));
    expect(needs.flat).toMatchObject({ models: ['flat'], languageModel: false, person: false });
    expect(needs.bt).toMatchObject({ models: ['navigate', 'combat', 'secure', 'retreat'], languageModel: false });
    expect(needs.llm).toMatchObject({ languageModel: true });
    expect(needs.human).toMatchObject({ person: true });
    for (const id of ['heuristic', 'bt-scripted', 'random'] as const) expect(needs[id]).toMatchObject({ models: [], languageModel: false, person: false });
    // With the shipped models, the model-backed teams can play; human needs a person (the page).
    expect(await teamAvailability('bt', TEST_PLATFORM)).toMatchObject({ ok: true });
    expect(await teamAvailability('human', TEST_PLATFORM)).toMatchObject({ ok: false, reason: 'a person plays in the browser (npm start)' });
    expect(await teamAvailability('human', createPlatform({ person: true }))).toMatchObject({ ok: true });
  });

  it.each(['heuristic', 'bt-scripted', 'random'])("'%s' builds a controller for the requested team", async (id) => {
    const team = await createTeam(id, ctx);
    expect(team.id).toBe(id);
    expect(team.team).toBe(1);
  });
});
