/**
 * Shared fixtures for the training tests: a tiny PPO config, small policies with outputs
 * well away from zero, and export into temporary directories (never models/ or runs/).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CONFIG, OBS_SIZE, Rng, createWorld, observe, wrapAngle } from '../../src/sim';
import { type ExportInfo, exportModel } from '../../src/train/artifacts';
import { type PolicyState, type PpoConfig, type UpdateStats, createPolicyState } from '../../src/train/ppo';
import { type ModelName, randomFreeSpot } from '../../src/train/scenarios';

/** A tiny but complete PPO config: 2 envs x 2 learners x 16 steps = 64 samples per update. */
export const TINY: PpoConfig = {
  seed: 7,
  totalSteps: 192,
  numEnvs: 2,
  rolloutSteps: 16,
  hidden: [16, 16],
  learningRate: 3e-3,
  annealLearningRate: true,
  gamma: 0.99,
  gaeLambda: 0.95,
  epochs: 2,
  minibatchSize: 32,
  clip: 0.2,
  entropyCoef: 0.01,
  maxGradNorm: 0.5,
  initLogStd: -0.5,
  obsClip: 5,
  horizonSteps: 40,
  workers: 1,
  teacherCoef: 0,
  teacherFraction: 0.5,
  teacherFloor: 0,
};

/** Observations of agents scattered over seeded worlds (all four agents, varied poses). */
export function sampleObservations(count: number, seed = 1): Float32Array {
  const rng = new Rng(seed);
  const obs = new Float32Array(count * OBS_SIZE);
  for (let i = 0; i < count; i++) {
    const world = createWorld((seed * 1000 + i) >>> 0);
    for (const agent of world.agents) {
      Object.assign(agent, randomFreeSpot(DEFAULT_CONFIG, rng));
      agent.angle = wrapAngle(rng.next() * 2 * Math.PI);
    }
    observe(world, i % 4, obs, i * OBS_SIZE);
  }
  return obs;
}

/**
 * A small policy that is not at its initialisation: weights perturbed so the outputs (and the
 * dash/fire logits) are far from zero, and normalisation statistics from real observations.
 */
export function tinyState(seed = 1, config: PpoConfig = TINY): PolicyState {
  const state = createPolicyState({ ...config, seed });
  const rng = new Rng(seed + 1000);
  const p = state.policy.params;
  for (let i = 0; i < p.length; i++) p[i] = p[i]! + (rng.next() - 0.5) * 0.8;
  state.normalizer.update(sampleObservations(64, seed), 64);
  state.logStd.set([-0.6, -0.4, -0.8]);
  return state;
}

export function exportInfo(name: ModelName, config: PpoConfig = TINY, curve: readonly UpdateStats[] = []): ExportInfo {
  return {
    name,
    kind: name === 'flat' ? 'flat' : 'skill',
    scenario: name,
    opponent: name === 'flat' ? 'self' : 'heuristic',
    teacher: null,
    steps: curve.at(-1)?.steps ?? 0,
    wallSeconds: 2.5,
    config,
    curve,
    evaluation: null,
  };
}

/** Export one tiny model per name into `dir`. */
export async function exportTinyModels(dir: string, names: readonly ModelName[]): Promise<void> {
  for (const [i, name] of names.entries()) await exportModel(dir, tinyState(i + 1), exportInfo(name));
}

export function tempDir(label: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `hillmind-${label}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
