/**
 * Training benchmarks for `npm run bench`: end-to-end PPO throughput with a shipped config
 * (rollouts, GAE and updates, as `npm run train` runs them) on one worker and on the
 * shipped worker count side by side, the update step alone, and what the throughput means
 * for retraining every shipped model.
 */
import type { BenchRow } from '../match/benchmarks';
import { ACTION_SIZE, OBS_SIZE, Rng } from '../sim';
import { Adam } from './adam';
import { TRAINING_CONFIGS } from './config';
import { Mlp } from './mlp';
import { CONTINUOUS, type PpoConfig, createPolicyState, logProb, policyLossAndGrad } from './ppo';
import { MODEL_NAMES } from './scenarios';
import { trainPpo } from './trainer';

/** Learner decisions per second on this 2-core machine the issue asks for (aim: 30,000). */
const THROUGHPUT_TARGET = 20_000;
const RETRAIN_HOURS_TARGET = 2;

/**
 * Train navigate from scratch with `config` (the shipped plan: its opponents and teacher);
 * steps and seconds from the first update's end to the last's, so starting worker threads
 * is not counted against the steady rate.
 */
async function trainNavigate(config: PpoConfig): Promise<{ steps: number; seconds: number }> {
  const { phases, teacher } = TRAINING_CONFIGS.navigate;
  let first: { steps: number; at: number } | null = null;
  let last = { steps: 0, at: 0 };
  await trainPpo({ scenario: 'navigate', config, phases, teacher }, createPolicyState(config), {
    onUpdate: (s) => {
      last = { steps: s.steps, at: performance.now() };
      first ??= last;
    },
  });
  return { steps: last.steps - first!.steps, seconds: (last.at - first!.at) / 1000 };
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

export async function benchTraining(seconds: number): Promise<BenchRow[]> {
  const shipped = TRAINING_CONFIGS.navigate.ppo;
  const learnersPerEnv = 2; // navigate plays fixed opponents
  const perUpdate = shipped.numEnvs * learnersPerEnv * shipped.rolloutSteps;

  // Three updates to warm up and calibrate, then a budget of whole updates sized to `seconds`.
  const runFor = async (workers: number) => {
    const calibration = await trainNavigate({ ...shipped, workers, totalSteps: 3 * perUpdate });
    const updates = Math.max(3, Math.round((seconds * calibration.steps) / calibration.seconds / perUpdate));
    return trainNavigate({ ...shipped, workers, totalSteps: (updates + 1) * perUpdate });
  };
  const single = await runFor(1);
  const run = await runFor(shipped.workers);
  const singleThroughput = single.steps / single.seconds;
  const throughput = run.steps / run.seconds;

  const policyMs = updateStepMs(shipped, false, seconds / 2);
  const bothMs = updateStepMs(shipped, true, seconds / 2);
  // Minibatches per update: every sample (at most; dead agents' samples are skipped) in each epoch.
  const minibatches = shipped.epochs * Math.floor(perUpdate / shipped.minibatchSize);
  const updateShare = Math.min(1, (minibatches * bothMs) / 1000 / (single.seconds / (single.steps / perUpdate)));

  const totalSteps = MODEL_NAMES.reduce((sum, name) => sum + TRAINING_CONFIGS[name].ppo.totalSteps, 0);
  const net = [OBS_SIZE, ...shipped.hidden, ACTION_SIZE].join('-');
  return [
    { name: `PPO end to end, navigate, 1 worker (${(single.steps / 1000).toFixed(0)}k steps)`, value: singleThroughput, unit: 'agent-steps/s' },
    {
      name: `PPO end to end, navigate, ${shipped.workers} workers (${(throughput / singleThroughput).toFixed(2)}x 1 worker)`,
      value: throughput,
      unit: 'agent-steps/s',
      target: THROUGHPUT_TARGET,
    },
    { name: `PPO update, policy ${net}, batch ${shipped.minibatchSize}`, value: policyMs, unit: 'ms/minibatch' },
    { name: `PPO update, policy + value, batch ${shipped.minibatchSize}`, value: bothMs, unit: 'ms/minibatch' },
    { name: 'PPO update share of 1-worker training time (est.)', value: 100 * updateShare, unit: '%' },
    { name: `retrain all 5 models (${(totalSteps / 1e6).toFixed(0)}M steps, est.)`, value: totalSteps / throughput / 3600, unit: 'hours', target: RETRAIN_HOURS_TARGET, lowerIsBetter: true },
  ];
}
