/**
 * Training benchmarks for `npm run bench`: end-to-end PPO throughput with a shipped config
 * (rollouts, GAE and updates, as `npm run train` runs them), the update step alone, and
 * what the throughput means for retraining every shipped model. One core.
 */
import type { BenchRow } from '../match/benchmarks';
import { ACTION_SIZE, OBS_SIZE, Rng } from '../sim';
import { HEURISTIC_POLICY } from '../teams/heuristic';
import { Adam } from './adam';
import { TRAINING_CONFIGS } from './config';
import { VecEnv } from './env';
import { Mlp } from './mlp';
import { CONTINUOUS, type PpoConfig, createPolicyState, logProb, policyLossAndGrad, trainPpo } from './ppo';
import { MODEL_NAMES, SCENARIOS } from './scenarios';

/** Learner decisions per second the retraining budget (all five models in 2 hours) asks for, with margin. */
const THROUGHPUT_TARGET = 15_000;
const RETRAIN_HOURS_TARGET = 2;

/** Train navigate from scratch with `config`; steps done and seconds taken (env and state creation excluded). */
async function trainNavigate(config: PpoConfig): Promise<{ steps: number; seconds: number }> {
  const state = createPolicyState(config);
  const env = new VecEnv(SCENARIOS.navigate, config.numEnvs, config.seed, HEURISTIC_POLICY, { horizonSteps: config.horizonSteps });
  let steps = 0;
  const start = performance.now();
  await trainPpo(env, state, config, { onUpdate: (s) => void (steps = s.steps) });
  return { steps, seconds: (performance.now() - start) / 1000 };
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
  const learnersPerEnv = 2; // navigate plays the heuristic team
  const perUpdate = shipped.numEnvs * learnersPerEnv * shipped.rolloutSteps;

  // One update to warm up and calibrate, then a budget of whole updates sized to `seconds`.
  const calibration = await trainNavigate({ ...shipped, totalSteps: perUpdate });
  const updates = Math.max(2, Math.round((seconds * calibration.steps) / calibration.seconds / perUpdate));
  const run = await trainNavigate({ ...shipped, totalSteps: updates * perUpdate });
  const throughput = run.steps / run.seconds;

  const policyMs = updateStepMs(shipped, false, seconds / 2);
  const bothMs = updateStepMs(shipped, true, seconds / 2);
  // Minibatches per update: every sample (at most; dead agents' samples are skipped) in each epoch.
  const minibatches = shipped.epochs * Math.floor(perUpdate / shipped.minibatchSize);
  const updateShare = Math.min(1, (minibatches * bothMs) / 1000 / (run.seconds / updates));

  const totalSteps = MODEL_NAMES.reduce((sum, name) => sum + TRAINING_CONFIGS[name].ppo.totalSteps, 0);
  const net = [OBS_SIZE, ...shipped.hidden, ACTION_SIZE].join('-');
  return [
    { name: `PPO end to end, navigate (${(run.steps / 1000).toFixed(0)}k steps)`, value: throughput, unit: 'agent-steps/s', target: THROUGHPUT_TARGET },
    { name: `PPO update, policy ${net}, batch ${shipped.minibatchSize}`, value: policyMs, unit: 'ms/minibatch' },
    { name: `PPO update, policy + value, batch ${shipped.minibatchSize}`, value: bothMs, unit: 'ms/minibatch' },
    { name: 'PPO update share of training time (est.)', value: 100 * updateShare, unit: '%' },
    { name: `retrain all 5 models (${(totalSteps / 1e6).toFixed(0)}M steps, est.)`, value: totalSteps / throughput / 3600, unit: 'hours', target: RETRAIN_HOURS_TARGET, lowerIsBetter: true },
  ];
}
