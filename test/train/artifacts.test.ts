import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_SPEC_VERSION, OBS_SIZE, OBS_SPEC_VERSION } from '../../src/sim';
import { type ModelCard, parseModelCard } from '../../src/skills/modelCard';
import {
  appendCurve,
  curvePoints,
  exportModel,
  loadCheckpoint,
  readCurve,
  saveCheckpoint,
} from '../../src/train/artifacts';
import { TRAINING_CONFIGS } from '../../src/train/config';
import { inspectOnnx } from '../../src/train/onnxInspect';
import { referenceForward } from '../../src/train/onnxExport';
import { type PolicyState, type PpoConfig, type UpdateStats, createPolicyState } from '../../src/train/ppo';
import type { ModelName } from '../../src/train/scenarios';
import { type TrainingPlan, trainPpo } from '../../src/train/trainer';
import { TINY, exportInfo, sampleObservations, tempDir, tinyState } from './fixtures';

const tmp = tempDir('artifacts');
afterAll(() => tmp.remove());

const plan = (config: PpoConfig, scenario: ModelName = 'navigate'): TrainingPlan => ({ scenario, config, phases: [{ opponents: ['heuristic'], until: 1 }], teacher: null });

async function trainTiny(config: PpoConfig, state: PolicyState, runDir: string, startSteps = 0): Promise<UpdateStats[]> {
  const seen: UpdateStats[] = [];
  await trainPpo(
    plan(config),
    state,
    {
      onUpdate(stats) {
        seen.push(stats);
        appendCurve(runDir, stats);
      },
    },
    startSteps,
  );
  return seen;
}

describe('exportModel: the model, its card and its curve', () => {
  const outDir = join(tmp.path, 'models');
  const runDir = join(tmp.path, 'runs', 'navigate');
  let state: PolicyState;
  let stats: UpdateStats[];
  let returned: ModelCard;
  let card: ModelCard;

  beforeAll(async () => {
    state = createPolicyState(TINY);
    stats = await trainTiny(TINY, state, runDir);
    returned = await exportModel(outDir, state, { ...exportInfo('navigate', TINY, readCurve(runDir)), wallSeconds: 1.4 });
    const cardPath = join(outDir, 'navigate.json');
    card = parseModelCard(readFileSync(cardPath, 'utf8'), cardPath);
  });

  it('writes <name>.onnx, <name>.json and <name>.curve.svg, nothing half-written', () => {
    expect(readdirSync(outDir).sort()).toEqual(['navigate.curve.svg', 'navigate.json', 'navigate.onnx']);
    const svg = readFileSync(join(outDir, 'navigate.curve.svg'), 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('navigate: learning curve');
    expect(card).toEqual(JSON.parse(JSON.stringify(returned)));
  });

  it('the curve on disk is what training reported', () => {
    expect(readCurve(runDir)).toEqual(JSON.parse(JSON.stringify(stats)));
    expect(stats.map((s) => s.steps)).toEqual([64, 128, 192]);
  });

  it('the card documents io, specs, network and training, with a reproduce command', () => {
    expect(card.format).toBe('hillmind-policy');
    expect(card.version).toBe(1);
    expect(card.name).toBe('navigate');
    expect(card.kind).toBe('skill');
    expect(card.obsSpecVersion).toBe(OBS_SPEC_VERSION);
    expect(card.actionSpecVersion).toBe(ACTION_SPEC_VERSION);
    expect(card.sha256).toBe(createHash('sha256').update(readFileSync(join(outDir, 'navigate.onnx'))).digest('hex'));
    expect(card.io).toEqual({
      input: 'obs',
      output: 'action_mean',
      inputShape: ['batch', OBS_SIZE],
      outputShape: ['batch', 5],
      outputLayout: ['move_mean', 'turn_mean', 'strafe_mean', 'dash_logit', 'fire_logit'],
    });
    expect(card.network).toEqual({ hidden: [16, 16], activation: 'tanh' });
    expect(card.logStd).toEqual(Array.from(state.logStd));
    expect(card.training.reproduce).toBe('npm run train -- --skill navigate --steps 192 --seed 7 --envs 2 --workers 1');
    expect(card.training.config).toEqual({ ...TINY, hidden: [16, 16] });
    expect(card.training.seed).toBe(7);
    expect(card.training.steps).toBe(192);
    expect(card.training.wallSeconds).toBe(1);
    expect(card.training.stepsPerSecond).toBe(Math.round(192 / 1.4));
    expect(card.training.scenario).toBe('navigate');
    expect(card.training.agentsPerTeam).toBe(2);
    expect(card.curve.plot).toBe('navigate.curve.svg');
    expect(card.curve.points.map((p) => p.steps)).toEqual([64, 128, 192]);
    const returns = stats.map((s) => s.meanReturn).filter((r): r is number => r !== null);
    expect(returns.length).toBeGreaterThan(0);
    expect(card.curve.finalMeanReturn).toBeCloseTo(returns.reduce((a, b) => a + b, 0) / returns.length, 12);
    expect(card.evaluation).toBeNull();
    expect(Number.isNaN(Date.parse(card.createdAt))).toBe(false);
  });

  it('the probe is 8 observations and the outputs the exported network gives on them', () => {
    expect(card.probe.tolerance).toBe(1e-4);
    expect(card.probe.inputs).toHaveLength(8);
    expect(card.probe.outputs).toHaveLength(8);
    for (const row of card.probe.inputs) expect(row).toHaveLength(OBS_SIZE);
    for (const row of card.probe.outputs) expect(row).toHaveLength(5);
    // Distinct observations (not 8 copies of one).
    expect(new Set(card.probe.inputs.map((r) => r.join(','))).size).toBe(8);
    const expected = referenceForward({ mlp: state.policy, ...state.normalizer.snapshot() }, Float32Array.from(card.probe.inputs.flat()), 8);
    expect(card.probe.outputs.flat()).toEqual(Array.from(expected));
  });

  it('the ONNX file declares the documented interface and records its specs', () => {
    const info = inspectOnnx(new Uint8Array(readFileSync(join(outDir, 'navigate.onnx'))));
    expect(info.inputs).toEqual([{ name: 'obs', elemType: 1, shape: ['batch', OBS_SIZE] }]);
    expect(info.outputs).toEqual([{ name: 'action_mean', elemType: 1, shape: ['batch', 5] }]);
    expect(info.metadata).toEqual({ name: 'navigate', obsSpecVersion: String(OBS_SPEC_VERSION), actionSpecVersion: String(ACTION_SPEC_VERSION) });
  });

  it('flat models are cards of kind flat', async () => {
    const dir = join(tmp.path, 'flat');
    const flat = await exportModel(dir, tinyState(2), exportInfo('flat', TRAINING_CONFIGS.flat.ppo));
    expect(flat.kind).toBe('flat');
    expect(flat.training.reproduce).toBe(`npm run train -- --skill flat --steps ${TRAINING_CONFIGS.flat.ppo.totalSteps} --seed 5 --envs ${TRAINING_CONFIGS.flat.ppo.numEnvs} --workers 2`);
    expect(flat.curve.finalMeanReturn).toBeNull(); // no curve, no made-up figure
  });

  // BUG (src/train/artifacts.ts, exportModel, the `reproduce:` line): the command is built from
  // --skill, --steps and --seed only. A model trained with `--envs N` (N != the shipped 32) records
  // numEnvs: N in training.config, but its reproduce command trains with 32 environments, which
  // gives a different model (the buffer, the minibatches and the episode seeds all change). The
  // command should add `--envs N` whenever config.numEnvs differs from TRAINING_CONFIGS[name].
  it('the reproduce command reproduces a run with a non-default --envs', async () => {
    const config = { ...TRAINING_CONFIGS.retreat.ppo, numEnvs: 2, totalSteps: 2000 };
    const exported = await exportModel(join(tmp.path, 'envs'), tinyState(3), exportInfo('retreat', config));
    expect(exported.training.config.numEnvs).toBe(2);
    expect(exported.training.reproduce).toContain('--envs 2');
  });
});

describe('checkpoints', () => {
  it('save/load round-trips every parameter, the normaliser and the run facts', () => {
    const dir = join(tmp.path, 'cp-roundtrip');
    const state = tinyState(4);
    state.normalizer.update(sampleObservations(10, 8), 10);
    saveCheckpoint(dir, { name: 'combat', steps: 12345, wallSeconds: 6.5, config: TINY, state });
    expect(readdirSync(dir)).toEqual(['checkpoint.json']);
    const cp = loadCheckpoint(dir);
    expect(cp.name).toBe('combat');
    expect(cp.steps).toBe(12345);
    expect(cp.wallSeconds).toBe(6.5);
    expect(cp.config).toEqual(TINY);
    expect(cp.state.policy.sizes).toEqual([OBS_SIZE, 16, 16, 5]);
    expect(cp.state.value.sizes).toEqual([OBS_SIZE, 16, 16, 1]);
    expect(cp.state.policy.params).toEqual(state.policy.params);
    expect(cp.state.value.params).toEqual(state.value.params);
    expect(cp.state.logStd).toEqual(state.logStd);
    expect(Array.from(cp.state.normalizer.mean)).toEqual(Array.from(state.normalizer.mean));
    expect(Array.from(cp.state.normalizer.var)).toEqual(Array.from(state.normalizer.var));
    expect(cp.state.normalizer.count).toBe(state.normalizer.count);
    expect(cp.state.normalizer.clip).toBe(state.normalizer.clip);
    // Same network, same answers.
    const obs = sampleObservations(5, 2);
    const norm = new Float32Array(obs.length);
    state.normalizer.normalize(obs, 5, norm);
    const a = Array.from(state.policy.forward(norm, 5));
    cp.state.normalizer.normalize(obs, 5, norm);
    expect(Array.from(cp.state.policy.forward(norm, 5))).toEqual(a);
  });

  it('a run stopped after a checkpoint and resumed ends bit for bit where an uninterrupted run does', async () => {
    const config: PpoConfig = { ...TINY, totalSteps: 256 }; // 4 updates of 64
    const straight = createPolicyState(config);
    await trainPpo(plan(config, 'combat'), straight);

    // The same run, killed right after the checkpoint it wrote at update 2.
    const runDir = join(tmp.path, 'runs', 'exact');
    class Killed extends Error {}
    const stopped = trainPpo(plan(config, 'combat'), createPolicyState(config), {
      onUpdate(stats, state, trainer) {
        if (stats.steps < 128) return;
        saveCheckpoint(runDir, { name: 'combat', steps: stats.steps, wallSeconds: 1, config, state, trainer: trainer() });
        throw new Killed();
      },
    });
    await expect(stopped).rejects.toBeInstanceOf(Killed);

    const bits = (s: PolicyState) => [s.policy.params, s.value.params, s.logStd].map((a) => Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length)));
    const resume = async (withTrainer: boolean) => {
      const cp = loadCheckpoint(runDir);
      expect(cp.steps).toBe(128);
      await trainPpo(plan(cp.config, 'combat'), cp.state, {}, cp.steps, withTrainer ? cp.trainer : undefined);
      return cp.state;
    };
    const resumed = await resume(true);
    expect(bits(resumed)).toEqual(bits(straight));
    expect(Array.from(resumed.normalizer.mean)).toEqual(Array.from(straight.normalizer.mean));
    expect(resumed.normalizer.count).toBe(straight.normalizer.count);
    // Without the optimizer and the episodes (an older checkpoint) the run goes elsewhere.
    expect(bits(await resume(false))).not.toEqual(bits(straight));
  });

  it('loading where there is none names the path', () => {
    const dir = join(tmp.path, 'nothing-here');
    expect(() => loadCheckpoint(dir)).toThrow(`no checkpoint to resume from at ${join(dir, 'checkpoint.json')}`);
  });

  it('resuming from a checkpoint continues the step count and the curve', async () => {
    const runDir = join(tmp.path, 'runs', 'resume');
    const state = createPolicyState(TINY);
    const first = await trainTiny(TINY, state, runDir);
    saveCheckpoint(runDir, { name: 'navigate', steps: first.at(-1)!.steps, wallSeconds: 1, config: TINY, state });

    const cp = loadCheckpoint(runDir);
    const before = Array.from(cp.state.policy.params);
    const config = { ...cp.config, totalSteps: 320 };
    const resumed = await trainTiny(config, cp.state, runDir, cp.steps);
    expect(resumed.map((s) => s.steps)).toEqual([256, 320]);
    expect(Array.from(cp.state.policy.params)).not.toEqual(before);
    const curve = readCurve(runDir);
    expect(curve.map((s) => s.steps)).toEqual([64, 128, 192, 256, 320]);
    // The learning-rate schedule is global: it continues from where the first run stopped.
    expect(resumed[0]!.learningRate).toBeCloseTo(TINY.learningRate * Math.max(1 - 192 / 320, 0.05), 12);
    expect(existsSync(join(runDir, 'checkpoint.json.tmp'))).toBe(false);
  });
});

describe('curvePoints', () => {
  const stat = (update: number, meanReturn: number | null): UpdateStats => ({
    update,
    steps: update * 100,
    stepsPerSecond: 1,
    meanReturn,
    meanLength: 1,
    episodes: 1,
    policyLoss: 0,
    valueLoss: 0,
    entropy: 0,
    approxKl: 0,
    clipFraction: 0,
    teacherLoss: 0,
    teacherCoef: 0,
    learningRate: 0,
  });

  it('smooths over the last 5 updates with a return, and keeps at most `max` points including the last', () => {
    const curve = Array.from({ length: 1000 }, (_, i) => stat(i + 1, i % 7 === 0 ? null : i));
    const points = curvePoints(curve, 200);
    expect(points.length).toBeLessThanOrEqual(201);
    expect(points.at(-1)!.steps).toBe(100_000);
    const short = curvePoints([stat(1, 1), stat(2, null), stat(3, 5), stat(4, 6), stat(5, 7), stat(6, 8), stat(7, 9)]);
    expect(short.map((p) => p.meanReturn)).toEqual([1, 1, 3, 4, 4.75, 6.5, 7]);
    expect(curvePoints([stat(1, null)])).toEqual([{ steps: 100, meanReturn: null }]);
  });
});
