import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Match, runMatch, verifyReplay } from '../../src/match';
import { DEFAULT_CONFIG } from '../../src/sim';
import { ModelLibrary, SKILL_IDS } from '../../src/skills';
import { nodeModelSource } from '../../src/skills/nodeModels';
import { type Platform, createPlatform, createTeam, teamAvailability } from '../../src/teams';
import { exportModel } from '../../src/train/artifacts';
import { MODEL_NAMES } from '../../src/train/scenarios';
import { exportInfo, exportTinyModels, tempDir, tinyState } from '../train/fixtures';

const tmp = tempDir('model-teams');
const models = join(tmp.path, 'models');
/** A platform whose models come from `dir` (null: none at all). */
const platformWith = (dir: string | null): Platform => createPlatform({ models: new ModelLibrary(dir === null ? null : nodeModelSource(dir)) });
const ctx = (platform: Platform) => ({ team: 0 as const, seed: 3, config: DEFAULT_CONFIG, platform });

afterAll(() => tmp.remove());

describe("model-backed teams ('bt' and 'flat') with models from the platform's library", () => {
  let match: Match;
  let platform: Platform;

  beforeAll(async () => {
    await exportTinyModels(models, MODEL_NAMES);
    platform = platformWith(models);
    match = await runMatch({ blue: 'bt', red: 'flat', seed: 21 }, { platform });
  });

  it('loads the four skills as ONNX policies', async () => {
    const skills = await platform.models.skillSet();
    for (const id of SKILL_IDS) {
      expect(skills[id].kind, id).toBe('onnx');
      expect(skills[id].name, id).toBe(id);
    }
    const mixed = await platform.models.skillSet({ retreat: 'scripted' });
    expect(mixed.retreat.kind).toBe('scripted');
    expect(mixed.combat.kind).toBe('onnx');
  });

  it('bt vs flat plays to the end; the bt agents report skills, the flat ones none', () => {
    expect(match.done).toBe(true);
    const summary = match.summary();
    expect(summary.blue).toBe('bt');
    expect(summary.red).toBe('flat');
    expect(summary.ticks).toBeGreaterThan(0);
    const blue = summary.agents.filter((a) => a.team === 'blue');
    const red = summary.agents.filter((a) => a.team === 'red');
    for (const a of blue) {
      const seconds = Object.values(a.skillSeconds).reduce((s, v) => s + v!, 0);
      expect(seconds, `agent ${a.agent}`).toBeGreaterThan(0);
      expect(seconds).toBeLessThanOrEqual(summary.durationSeconds + 1e-9);
      for (const skill of Object.keys(a.skillSeconds)) expect(SKILL_IDS).toContain(skill);
    }
    for (const a of red) expect(a.skillSeconds).toEqual({});
    expect(summary.decisions.blue).toBeGreaterThan(0);
    // The flat policy drives its agents: they moved off their spawn points.
    const spawns = DEFAULT_CONFIG.arena.spawns[1];
    const moved = match.world.agents.filter((a) => a.team === 1).some((a, i) => Math.hypot(a.x - spawns[i]!.x, a.y - spawns[i]!.y) > 0.5);
    expect(moved || red.some((a) => a.shots > 0 || a.deaths > 0)).toBe(true);
  });

  it('the same seed gives the same match (hash), and the replay verifies', async () => {
    const again = await runMatch({ blue: 'bt', red: 'flat', seed: 21 }, { platform, record: false });
    expect(again.summary().hash).toBe(match.summary().hash);
    const result = verifyReplay(JSON.parse(JSON.stringify(match.replay())));
    expect(result.ok).toBe(true);
    expect(result.actualHash).toBe(match.summary().hash);
  });

  it("bt plays its platform's skill models: another navigate model changes the match", async () => {
    const other = join(tmp.path, 'other-navigate');
    cpSync(models, other, { recursive: true });
    await exportModel(other, tinyState(42), exportInfo('navigate'));
    const changed = await runMatch({ blue: 'bt', red: 'flat', seed: 21 }, { platform: platformWith(other), record: false });
    expect(changed.summary().hash).not.toBe(match.summary().hash);
  });

  it('without models (or without the files) creating them says they are not available, and so does the probe', async () => {
    const none = platformWith(null);
    await expect(createTeam('bt', ctx(none))).rejects.toThrow(/^team 'bt' is not available: no trained models are available here/);
    await expect(createTeam('flat', ctx(none))).rejects.toThrow(/^team 'flat' is not available: no trained models are available here/);
    const empty = join(tmp.path, 'empty');
    mkdirSync(empty, { recursive: true });
    const missing = platformWith(empty);
    await expect(createTeam('flat', ctx(missing))).rejects.toThrow(`team 'flat' is not available: ${join(empty, 'flat.onnx')} is missing: the model folder is ${empty} (HILLMIND_MODELS chooses it)`);
    await expect(createTeam('bt', ctx(missing))).rejects.toThrow(/^team 'bt' is not available: .*\.onnx is missing: .*unset HILLMIND_MODELS.* npm run train -- --skill /);
    // The probe reads the declared needs and says the same without building anything.
    expect(await teamAvailability('flat', missing)).toMatchObject({ ok: false, reason: expect.stringMatching(/flat\.onnx is missing: .*The shipped models are in models\/.*npm run train -- --skill flat/) });
    expect(await teamAvailability('bt', none)).toMatchObject({ ok: false, needs: { models: SKILL_IDS } });
    expect(await teamAvailability('bt', platform)).toMatchObject({ ok: true });
    expect((await createTeam('flat', ctx(platform))).id).toBe('flat');
  });
});
