import { afterAll, describe, expect, it } from 'vitest';
import { ACTION_SIZE, DEFAULT_CONFIG, OBS_SIZE, Rng, type SimEvent, createWorld } from '../../src/sim';
import { loadCheckpoint, saveCheckpoint } from '../../src/train/artifacts';
import { type PpoConfig, opponentsAt, shotCostAt, teacherWeight } from '../../src/train/config';
import { SCENARIOS, withShotCost } from '../../src/train/scenarios';
import { shardEnvs } from '../../src/train/learner';
import { type PolicyState, type UpdateStats, addTeacherGrad, createPolicyState } from '../../src/train/ppo';
import { type TrainingPlan, trainPpo } from '../../src/train/trainer';
import { TINY, tempDir } from './fixtures';

const tmp = tempDir('trainer');
afterAll(() => tmp.remove());

/** Two workers, two environments each; a tree opponent in half of them. */
const PARALLEL: PpoConfig = { ...TINY, numEnvs: 4, workers: 2, totalSteps: 4 * 128 };
const plan = (config: PpoConfig): TrainingPlan => ({ scenario: 'combat', config, phases: [{ opponents: ['heuristic', 'bt-scripted'], until: 1 }], teacher: 'combat' });
const bits = (s: PolicyState) => [s.policy.params, s.value.params, s.logStd].map((a) => Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length)));

async function run(config: PpoConfig) {
  const state = createPolicyState(config);
  const stats: UpdateStats[] = [];
  await trainPpo(plan(config), state, { onUpdate: (s) => void stats.push(s) });
  return { state, stats };
}

describe('the trainer on worker threads', () => {
  it('is deterministic for a seed and worker count, counts every worker\'s steps, and differs with one worker', async () => {
    const config = { ...PARALLEL, teacherCoef: 1 };
    const a = await run(config);
    const b = await run(config);
    expect(bits(b.state)).toEqual(bits(a.state));
    expect(Array.from(b.state.normalizer.mean)).toEqual(Array.from(a.state.normalizer.mean));
    // 4 envs x 2 learners x 16 steps per update, split over the two workers.
    expect(a.stats.map((s) => s.steps)).toEqual([128, 256, 384, 512]);
    expect(a.state.normalizer.count).toBeCloseTo(4 * 128, 0); // both workers' observations, once each
    expect(a.stats[0]!.teacherCoef).toBe(1);
    expect(a.stats.at(-1)!.teacherCoef).toBe(0); // decayed by half the budget
    const solo = await run({ ...config, workers: 1 });
    expect(bits(solo.state)).not.toEqual(bits(a.state));
  });

  it('a run stopped after a checkpoint and resumed on two workers ends bit for bit where an uninterrupted one does', async () => {
    const straight = (await run(PARALLEL)).state;
    const runDir = `${tmp.path}/exact`;
    class Killed extends Error {}
    const stopped = trainPpo(plan(PARALLEL), createPolicyState(PARALLEL), {
      onUpdate(stats, state, trainer) {
        if (stats.steps < 256) return;
        saveCheckpoint(runDir, { name: 'combat', steps: stats.steps, wallSeconds: 1, config: PARALLEL, state, trainer: trainer() });
        throw new Killed();
      },
    });
    await expect(stopped).rejects.toBeInstanceOf(Killed);
    const cp = loadCheckpoint(runDir);
    expect(cp.steps).toBe(256);
    expect(cp.trainer?.workers).toBe(2);
    const resumed: UpdateStats[] = [];
    await trainPpo(plan(cp.config), cp.state, { onUpdate: (s) => void resumed.push(s) }, cp.steps, cp.trainer);
    expect(bits(cp.state)).toEqual(bits(straight));
    expect(resumed.map((s) => [s.update, s.steps])).toEqual([
      [3, 384],
      [4, 512],
    ]); // the curve's update numbers continue
    // The worker count is part of the run: another cannot continue it.
    const again = loadCheckpoint(runDir);
    await expect(trainPpo(plan({ ...again.config, workers: 1 }), again.state, {}, again.steps, again.trainer)).rejects.toThrow(/trained by 2 workers/);
  });

  it('learns from the tree over the scripted skills as a teacher on worker threads: its targets grow easier to match', async () => {
    const config: PpoConfig = { ...PARALLEL, totalSteps: 40 * 128, teacherCoef: 5, teacherFloor: 1 };
    const stats: UpdateStats[] = [];
    const taught: TrainingPlan = { scenario: 'flat', config, phases: [{ opponents: ['heuristic'], until: 1 }], teacher: 'bt-scripted' };
    await trainPpo(taught, createPolicyState(config), { onUpdate: (s) => void stats.push(s) });
    const mean = (xs: readonly UpdateStats[]) => xs.reduce((sum, s) => sum + s.teacherLoss, 0) / xs.length;
    expect(stats.every((s) => s.teacherCoef === 5 && Number.isFinite(s.teacherLoss))).toBe(true);
    expect(mean(stats.slice(-5))).toBeLessThan(0.5 * mean(stats.slice(0, 5)));
  });

  it('shares the environments out whole, and refuses more workers than environments', async () => {
    expect([0, 1, 2].map((r) => shardEnvs(7, 3, r))).toEqual([2, 2, 3]);
    await expect(run({ ...PARALLEL, numEnvs: 1, workers: 2 })).rejects.toThrow(/2 workers need at least 2 environments/);
  });
});

describe('schedules', () => {
  it('opponentsAt walks the phases; teacherWeight decays linearly to its floor', () => {
    const phases = [
      { opponents: 'self' as const, until: 0.5 },
      { opponents: ['heuristic' as const], until: 1 },
    ];
    expect(opponentsAt(phases, 0, 100)).toBe('self');
    expect(opponentsAt(phases, 49, 100)).toBe('self');
    expect(opponentsAt(phases, 50, 100)).toEqual(['heuristic']);
    expect(opponentsAt(phases, 500, 100)).toEqual(['heuristic']);
    const config = { ...TINY, totalSteps: 1000, teacherCoef: 2, teacherFraction: 0.5, teacherFloor: 0.1 };
    expect(teacherWeight(config, 0)).toBe(2);
    expect(teacherWeight(config, 250)).toBeCloseTo(1.1, 12);
    expect(teacherWeight(config, 500)).toBeCloseTo(0.2, 12);
    expect(teacherWeight(config, 900)).toBeCloseTo(0.2, 12);
    expect(teacherWeight({ ...config, teacherCoef: 0 }, 0)).toBe(0);
  });

  it('shotCostAt rises linearly to the shot cost over its ramp, then holds it; without a ramp it is the cost throughout', () => {
    const plan = { shotCost: 0.1, shotCostRamp: 0.5 };
    expect([0, 250, 500, 900].map((steps) => shotCostAt(plan, steps, 1000))).toEqual([0, 0.05, 0.1, 0.1]);
    expect(shotCostAt({ shotCost: 0.2 }, 0, 1000)).toBe(0.2);
    expect(shotCostAt({}, 500, 1000)).toBe(0);
  });

  it('withShotCost charges every shot at the cost it reads at that step', () => {
    let cost = 0;
    const scenario = withShotCost({ ...SCENARIOS.flat, reward: () => 1 }, () => cost);
    const world = createWorld(1, DEFAULT_CONFIG);
    const agent = world.agents[0]!;
    const shot = { type: 'shot', agent: agent.id } as unknown as SimEvent;
    const view = { world, agent, events: [shot, shot, { ...shot, agent: 3 }], before: new Float32Array(OBS_SIZE), after: new Float32Array(OBS_SIZE) };
    expect(scenario.reward(view)).toBe(1);
    cost = 0.25;
    expect(scenario.reward(view)).toBe(0.5); // two shots of its own; the other agent's is not charged
    expect(withShotCost(SCENARIOS.flat, 0)).toBe(SCENARIOS.flat);
  });
});

describe('the teacher term', () => {
  const n = 4;
  const rng = new Rng(12);
  const out = Float32Array.from({ length: n * ACTION_SIZE }, () => rng.next() * 2 - 1);
  const teacher = Float32Array.from({ length: n * ACTION_SIZE }, (_, i) => (i % ACTION_SIZE < 3 ? rng.next() * 2 - 1 : rng.next() < 0.5 ? 1 : 0));
  const loss = (o: Float32Array) => addTeacherGrad(o, teacher, n, 0.7, new Float32Array(n * ACTION_SIZE));

  it('adds the gradient of its own loss (central differences), and is zero where the policy is the teacher', () => {
    const dOut = new Float32Array(n * ACTION_SIZE).fill(0.25); // added to, not overwritten
    addTeacherGrad(out, teacher, n, 0.7, dOut);
    for (let i = 0; i < out.length; i++) {
      const h = 1e-3;
      const plus = out.slice();
      const minus = out.slice();
      plus[i] = Math.fround(out[i]! + h);
      minus[i] = Math.fround(out[i]! - h);
      const numeric = (loss(plus) - loss(minus)) / (plus[i]! - minus[i]!);
      expect(Math.abs(dOut[i]! - 0.25 - numeric), `output ${i}`).toBeLessThan(1e-4);
    }
    const same = teacher.slice();
    for (let s = 0; s < n; s++) for (const j of [3, 4]) same[s * ACTION_SIZE + j] = teacher[s * ACTION_SIZE + j]! > 0.5 ? 30 : -30;
    const grad = new Float32Array(n * ACTION_SIZE);
    expect(addTeacherGrad(same, teacher, n, 1, grad)).toBeLessThan(1e-10);
    expect(grad.every((g) => Math.abs(g) < 1e-10)).toBe(true);
  });

  it('in training, pulls the policy towards its teacher: the term falls update after update', async () => {
    const config = { ...TINY, totalSteps: 64 * 20, epochs: 4, teacherCoef: 1, teacherFraction: 10, teacherFloor: 1, learningRate: 1e-2, annealLearningRate: false };
    const stats: UpdateStats[] = [];
    await trainPpo({ ...plan(config), config }, createPolicyState(config), { onUpdate: (s) => void stats.push(s) });
    const early = stats.slice(0, 3).reduce((a, s) => a + s.teacherLoss, 0);
    const late = stats.slice(-3).reduce((a, s) => a + s.teacherLoss, 0);
    expect(late).toBeLessThan(0.7 * early);
  });
});
