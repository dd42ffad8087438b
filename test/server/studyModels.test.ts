/**
 * The study server on damaged or swapped trained models: it does not start, naming each
 * model and what is wrong (as match and tournament refuse the same folder), and an episode
 * whose AI side could not be checked is never stored as verified.
 */
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAppServer, listen } from '../../src/server/server';
import { verificationModelNames } from '../../src/server/studyModels';
import { studyRoutes } from '../../src/server/studyRoutes';
import { DEFAULT_CONFIG } from '../../src/sim';
import { ModelLibrary } from '../../src/skills';
import { nodeModelSource } from '../../src/skills/nodeModels';
import { StudyStore, checkEpisode } from '../../src/survey';
import { humanReplay } from '../survey/fixture';
import { tempDir } from '../helpers/tempDirs';

const dir = tempDir('study-models');

/** A copy of the shipped models (cards and ONNX files), changed by `damage`. */
function modelFolder(name: string, damage: (folder: string) => void): ModelLibrary {
  const folder = join(dir, name);
  mkdirSync(folder);
  for (const file of readdirSync('models').filter((f) => /\.(onnx|json)$/.test(f) && !f.startsWith('strategist'))) copyFileSync(join('models', file), join(folder, file));
  damage(folder);
  return new ModelLibrary(nodeModelSource(folder));
}

const flipByte = (path: string) => {
  const bytes = readFileSync(path);
  const at = bytes.length >> 1;
  bytes[at] = bytes[at]! ^ 0x01;
  writeFileSync(path, bytes);
};

const swap = (a: string, b: string) => {
  const [x, y] = [readFileSync(a), readFileSync(b)];
  writeFileSync(a, y);
  writeFileSync(b, x);
};

describe('a study server on damaged or swapped models', () => {
  it('checks every model an AI team plays: the four trained skills and the flat policy', () => {
    expect([...verificationModelNames()].sort()).toEqual(['combat', 'flat', 'navigate', 'retreat', 'secure']);
  });

  it.each([
    ['a flipped byte', (f: string) => flipByte(join(f, 'combat.onnx')), /combat\.onnx is not the model its card describes: its SHA-256 is [0-9a-f]{64}, the card says c6103a9e/],
    ['two models swapped', (f: string) => swap(join(f, 'navigate.onnx'), join(f, 'retreat.onnx')), /navigate\.onnx is not the model its card describes[^]*retreat\.onnx is not the model its card describes/],
    [
      'two models swapped with their cards',
      (f: string) => ['onnx', 'json'].forEach((ext) => swap(join(f, `combat.${ext}`), join(f, `secure.${ext}`))),
      /combat\.json is the card of model 'secure', not 'combat': the model and its card were swapped or renamed/,
    ],
  ])('does not start on %s, naming each model and what is wrong', async (name, damage, problem) => {
    const models = modelFolder(name.replace(/ /g, '-'), damage);
    const root = join(dir, 'dist');
    mkdirSync(root, { recursive: true });
    const store = StudyStore.open(':memory:');
    try {
      const started = listen(createAppServer({ root, routes: [studyRoutes({ root, store, models })] }), 0);
      await expect(started).rejects.toThrow(/checks participants' episodes with the trained models in .*, and (one does|\d do) not load, so it does not start/);
      await expect(started).rejects.toThrow(problem);
    } finally {
      store.close();
    }
  });

  it("stores an episode whose AI side cannot be checked as not verified, saying why", async () => {
    const models = modelFolder('checked-later', (f) => flipByte(join(f, 'secure.onnx')));
    const config = { ...DEFAULT_CONFIG, episodeSeconds: 1 };
    const replay = await humanReplay('bt', 71, config);
    const expected = { block: 0, episode: 0, seed: 71, opponent: 'bt', teammate: 'bt-scripted', config: replay.config, personTeammate: false, maxTicks: 1_000_000, attemptAgeSeconds: 600 };
    const verdict = await checkEpisode(JSON.stringify({ block: 0, episode: 0, replay }), expected, models);
    expect(verdict).toMatchObject({ kind: 'store', replayOk: false });
    if (verdict.kind !== 'store') throw new Error('expected a verdict');
    expect(verdict.problem).toMatch(/^the AI side red \('bt'\) is not verified: not checked: .*secure\.onnx is not the model its card describes/);
    expect(verdict.summary.verification).toMatchObject({ ok: false, sides: { red: { checked: false }, blue: { checked: true } } });
  });
});
