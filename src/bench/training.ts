/**
 * Training benchmarks for `npm run bench`: end-to-end PPO throughput with a shipped config
 * (rollouts, GAE and updates, as `npm run train` runs them) on one worker and on the
 * shipped worker count side by side, flat with 2x64 and 2x128 networks side by side, the
 * update step alone, and what the throughput means for retraining every shipped model.
 */
import type { BenchRow } from './match';
import { ACTION_SIZE, OBS_SIZE, Rng } from '../sim';
import { Adam } from '../train/adam';
import { type Opponents, TRAINING_CONFIGS, type TrainedSkillNetworks, playsTrainedSkills, trainingPlan } from '../train/config';
import { Mlp } from '../train/mlp';
import { CONTINUOUS, type PpoConfig, createPolicyState, logProb, policyLossAndGrad } from '../train/ppo';
import { readTrainedSkills } from '../train/trainedSkills';
import { describeOpponents } from '../train/opponents';
import { MODEL_NAMES, type ModelName } from '../train/scenarios';
import { trainPpo } from '../train/trainer';

/** Learners per environment: all four in self-play, the blue pair against fixed opponents. */
const learnersPerEnv = (opponents: Opponents) => (opponents === 'self' ? 4 : 2);

/** Learner decisions per second on this 2-core machine the issue asks for (aim: 30,000). */
const THROUGHPUT_TARGET = 20_000;
/** All five models retrained on 2 cores, flat at 2x128 included. */
const RETRAIN_MINUTES_TARGET = 90;

/**
 * Train `model` from scratch with `config` (the shipped plan: its opponents and teacher);
 * steps and seconds from the first update's end to the last's, so starting worker threads
 * is not counted against the steady rate.
 */
async function trainFor(model: ModelName, config: PpoConfig, trainedSkills: TrainedSkillNetworks | undefined): Promise<{ steps: number; seconds: number }> {
  let first: { steps: number; at: number } | null = null;
  let last = { steps: 0, at: 0 };
  await trainPpo(trainingPlan(model, config, trainedSkills), createPolicyState(config), {
    onUpdate: (s) => {
      last = { steps: s.steps, at: performance.now() };
      first ??= last;
    },
  });
  return { steps: last.steps - first!.steps, seconds: (last.at - first!.at) / 1000 };
}

/** Three updates to warm up and calibrate, then a budget of whole updates sized to `seconds`. */
async function throughput(model: ModelName, config: PpoConfig, seconds: number, trainedSkills: TrainedSkillNetworks | undefined): Promise<number> {
  const perUpdate = config.numEnvs * learnersPerEnv(TRAINING_CONFIGS[model].phases[0]!.opponents) * config.rolloutSteps;
  const calibration = await trainFor(model, { ...config, totalSteps: 3 * perUpdate }, trainedSkills);
  const updates = Math.max(3, Math.round((seconds * calibration.steps) / calibration.seconds / perUpdate));
  const run = await trainFor(model, { ...config, totalSteps: (updates + 1) * perUpdate }, trainedSkills);
  return run.steps / run.seconds;
}

/** Milliseconds per minibatch of forward + loss + backward + Adam for `nets` (policy, then optionally value). */
function updateStepMs(config: PpoConfig, withValue: boolean, seconds: number): number {
  const n = config.minibatchSize;
  const rng = new Rng(12345);
  const random = () => rng.next();
  const policy = new Mlp([OBS_SIZE, ...config.hidden, ACTION_SIZE], random, { outputGain: 0.01 });
  const value = new Mlp([OBS_SIZE, ...config.hidden, 1], random, { outputGain: 1 });
  const policyAdam = new Adam(policy.params.length, { lr: config.learningRate, maxGradNorm: config.maxGradNorm });
  const valueAdam = new Adam(value.params.length, { lr: config.learningRate, maxGradNorm: config.maxGradNorm });
  const logStdAdam = new Adam(CONTINUOUS, { lr: config.learningRate });
  const logStd = new Float32Array(CONTINUOUS).fill(config.initLogStd);
  const obs = Float32Array.from({ length: n * OBS_SIZE }, () => random() * 4 - 2);
  const out0 = policy.forward(obs, n).slice();
  const actions = Float32Array.from({ length: n * ACTION_SIZE }, (_, i) => (i % ACTION_SIZE < CONTINUOUS ? out0[i]! + random() - 0.5 : random() < 0.5 ? 1 : 0));
  const oldLogProb = Float32Array.from({ length: n }, (_, s) => logProb(out0, s * ACTION_SIZE, logStd, actions, s * ACTION_SIZE));
  const advantages = Float32Array.from({ length: n }, () => random() * 2 - 1);
  const returns = Float32Array.from({ length: n }, () => random() * 2 - 1);
  const dOut = new Float32Array(n * ACTION_SIZE);
  const dLogStd = new Float32Array(CONTINUOUS);
  const dValue = new Float32Array(n);

  const once = () => {
    const out = policy.forward(obs, n);
    policyLossAndGrad(out, logStd, actions, oldLogProb, advantages, n, config.clip, config.entropyCoef, dOut, dLogStd);
    policy.zeroGrad();
    policy.backward(dOut);
    policyAdam.step(policy.params, policy.grads);
    logStdAdam.step(logStd, dLogStd);
    if (!withValue) return;
    const v = value.forward(obs, n);
    for (let b = 0; b < n; b++) dValue[b] = (v[b]! - returns[b]!) / n;
    value.zeroGrad();
    value.backward(dValue);
    valueAdam.step(value.params, value.grads);
  };
  for (let i = 0; i < 20; i++) once(); // warm-up (JIT)
  let iterations = 0;
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) {
    once();
    iterations++;
  }
  return (performance.now() - start) / iterations;
}

/** `modelDir`: where the trained skills are read from, for a model whose training plays bt. */
export async function benchTraining(seconds: number, modelDir: string): Promise<BenchRow[]> {
  // bt, as an opponent or a teacher, plays the skills in modelDir: read once, for the models that need them.
  let skills: TrainedSkillNetworks | undefined;
  const skillsFor = (model: ModelName) => (playsTrainedSkills(TRAINING_CONFIGS[model]) ? (skills ??= readTrainedSkills(modelDir).networks) : undefined);
  const shipped = TRAINING_CONFIGS.navigate.ppo;
  const perUpdate = shipped.numEnvs * learnersPerEnv(TRAINING_CONFIGS.navigate.phases[0]!.opponents) * shipped.rolloutSteps;
  const singleThroughput = await throughput('navigate', { ...shipped, workers: 1 }, seconds, skillsFor('navigate'));
  const navigateThroughput = await throughput('navigate', shipped, seconds, skillsFor('navigate'));
  // Flat's first phase with the skills' 2x64 networks and with its own (the study's 2x128), side by side.
  const flat = TRAINING_CONFIGS.flat.ppo;
  const flatNarrow = await throughput('flat', { ...flat, hidden: [64, 64] }, seconds, skillsFor('flat'));
  const flatWide = await throughput('flat', { ...flat, hidden: [128, 128] }, seconds, skillsFor('flat'));

  const policyMs = updateStepMs(shipped, false, seconds / 2);
  const bothMs = updateStepMs(shipped, true, seconds / 2);
  const wideMs = updateStepMs({ ...shipped, hidden: [128, 128] }, true, seconds / 2);
  // Minibatches per update: every sample (at most; dead agents' samples are skipped) in each epoch.
  const minibatches = shipped.epochs * Math.floor(perUpdate / shipped.minibatchSize);
  const updateShare = Math.min(1, (minibatches * bothMs) / 1000 / (perUpdate / singleThroughput));

  // Every model at the rate of its own network: flat's at flatWide, the skills' at navigate's.
  const retrainSeconds = MODEL_NAMES.reduce((sum, name) => sum + TRAINING_CONFIGS[name].ppo.totalSteps / (name === 'flat' ? flatWide : navigateThroughput), 0);
  const totalSteps = MODEL_NAMES.reduce((sum, name) => sum + TRAINING_CONFIGS[name].ppo.totalSteps, 0);
  const opening = TRAINING_CONFIGS.flat.phases[0]!.opponents;
  const firstPhase = opening !== 'self' && 'league' in opening ? 'league' : describeOpponents(opening);
  const net = (hidden: readonly number[]) => [OBS_SIZE, ...hidden, ACTION_SIZE].join('-');
  return [
    { name: `PPO end to end, navigate, 1 worker`, value: singleThroughput, unit: 'agent-steps/s' },
    {
      name: `PPO end to end, navigate, ${shipped.workers} workers (${(navigateThroughput / singleThroughput).toFixed(2)}x 1 worker)`,
      value: navigateThroughput,
      unit: 'agent-steps/s',
      target: THROUGHPUT_TARGET,
    },
    { name: `PPO end to end, flat's first phase (${firstPhase}), ${flat.workers} workers, 2x64`, value: flatNarrow, unit: 'agent-steps/s' },
    { name: `PPO end to end, flat's first phase (${firstPhase}), ${flat.workers} workers, 2x128 (${(flatWide / flatNarrow).toFixed(2)}x 2x64)`, value: flatWide, unit: 'agent-steps/s' },
    { name: `PPO update, policy ${net(shipped.hidden)}, batch ${shipped.minibatchSize}`, value: policyMs, unit: 'ms/minibatch' },
    { name: `PPO update, policy + value, batch ${shipped.minibatchSize}`, value: bothMs, unit: 'ms/minibatch' },
    { name: `PPO update, policy + value ${net([128, 128])}, batch ${shipped.minibatchSize}`, value: wideMs, unit: 'ms/minibatch' },
    { name: 'PPO update share of 1-worker training time (est.)', value: 100 * updateShare, unit: '%' },
    { name: `retrain all 5 models (${(totalSteps / 1e6).toFixed(0)}M steps, est.)`, value: retrainSeconds / 60, unit: 'minutes', target: RETRAIN_MINUTES_TARGET, lowerIsBetter: true },
  ];
}
