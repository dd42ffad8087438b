import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseModelCard } from '../../src/skills/modelCard';
import { nodeModelSource } from '../../src/skills/nodeModels';
import { loadCheckpoint, readCurve } from '../../src/train/artifacts';
import { TRAINING_CONFIGS } from '../../src/train/config';
import { tempDir } from './fixtures';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const tmp = tempDir('train-cli');
const out = join(tmp.path, 'models');
const runs = join(tmp.path, 'runs');
afterAll(() => tmp.remove());

function train(...args: string[]): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/train.ts', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, HILLMIND_DEBUG: '' },
  });
}

describe('npm run train (src/cli/train.ts)', () => {
  it('an unknown --skill exits 2 with the valid names and the usage', () => {
    const r = train('--skill', 'nope', '--out', out, '--runs', runs);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("error: --skill must be one of navigate, combat, secure, retreat, flat, got 'nope'");
    expect(r.stderr).toContain('usage: npm run train -- --skill <navigate|combat|secure|retreat|flat>');
    expect(existsSync(out) || existsSync(runs)).toBe(false);
  });

  it('trains a tiny run, writes the model, card, plot and curve, and --resume continues it', () => {
    const first = train('--skill', 'retreat', '--steps', '2000', '--envs', '2', '--out', out, '--runs', runs, '--quiet');
    expect(first.status, first.stderr).toBe(0);
    for (const file of ['retreat.onnx', 'retreat.json', 'retreat.curve.svg']) expect(existsSync(join(out, file)), file).toBe(true);
    const runDir = join(runs, 'retreat');
    for (const file of ['curve.jsonl', 'checkpoint.json', 'curve.svg']) expect(existsSync(join(runDir, file)), file).toBe(true);

    // 2 envs x 2 learners x 64 rollout steps = 256 steps per update, until at least 2000.
    const perUpdate = 2 * 2 * TRAINING_CONFIGS.retreat.ppo.rolloutSteps;
    const curve = readCurve(runDir);
    expect(curve.map((s) => s.steps)).toEqual(Array.from({ length: Math.ceil(2000 / perUpdate) }, (_, i) => (i + 1) * perUpdate));
    const card = parseModelCard(readFileSync(join(out, 'retreat.json'), 'utf8'), 'retreat.json');
    expect(card.name).toBe('retreat');
    expect(card.training.steps).toBe(curve.at(-1)!.steps);
    expect(card.training.config).toMatchObject({ numEnvs: 2, totalSteps: 2000, seed: TRAINING_CONFIGS.retreat.ppo.seed });
    expect(card.curve.points).toHaveLength(curve.length);
    expect(loadCheckpoint(runDir).steps).toBe(curve.at(-1)!.steps);

    const resumed = train('--skill', 'retreat', '--resume', '--steps', '4000', '--out', out, '--runs', runs, '--quiet');
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resuming retreat from ${curve.at(-1)!.steps.toLocaleString('en-US')} steps`);
    const longer = readCurve(runDir);
    expect(longer.length).toBeGreaterThan(curve.length);
    expect(longer.slice(0, curve.length)).toEqual(curve);
    const steps = longer.map((s) => s.steps);
    for (let i = 1; i < steps.length; i++) expect(steps[i]).toBeGreaterThan(steps[i - 1]!);
    expect(steps.at(-1)).toBeGreaterThanOrEqual(4000);
    expect(steps[curve.length]).toBe(curve.at(-1)!.steps + perUpdate);
    const card2 = parseModelCard(readFileSync(join(out, 'retreat.json'), 'utf8'), 'retreat.json');
    expect(card2.training.steps).toBe(steps.at(-1));
    expect(card2.training.config).toMatchObject({ numEnvs: 2, totalSteps: 4000 });
    expect(loadCheckpoint(runDir).steps).toBe(steps.at(-1));
  });

  it('the exported model loads and passes its probe', async () => {
    const policy = await nodeModelSource(out).load('retreat');
    expect(policy.name).toBe('retreat');
  });
});
