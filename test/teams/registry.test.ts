import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/sim';
import { TEAM_IDS, createTeam, isTeamId, teamEntries, teamEntry } from '../../src/teams';

const ctx = { team: 1 as const, seed: 3, config: DEFAULT_CONFIG };

describe('team registry', () => {
  // 'llm' becomes available where a model is configured: make sure none is, here.
  beforeAll(() => {
    for (const name of ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'LLM_MODEL']) vi.stubEnv(name, '');
  });
  afterAll(() => {
    vi.unstubAllEnvs();
  });

  it('lists the documented team ids, each with a description', () => {
    expect([...TEAM_IDS].sort()).toEqual(['bt', 'bt-scripted', 'flat', 'heuristic', 'human', 'llm', 'random']);
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

  it.each(['flat', 'bt', 'llm', 'human'])("'%s' is refused with a clear 'not available' error", async (id) => {
    await expect(createTeam(id, ctx)).rejects.toThrow(new RegExp(`team '${id}' is not available: \\S`));
  });

  it.each(['heuristic', 'bt-scripted', 'random'])("'%s' builds a controller for the requested team", async (id) => {
    const team = await createTeam(id, ctx);
    expect(team.id).toBe(id);
    expect(team.team).toBe(1);
  });
});
