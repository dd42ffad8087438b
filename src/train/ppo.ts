/**
 * Proximal Policy Optimization, readable top to bottom (after CleanRL's ppo_continuous_action).
 *
 * Policy: an MLP maps the normalised observation to 5 numbers: Gaussian means for move,
 * turn and strafe (with a learned, state-independent log standard deviation each) and
 * Bernoulli logits for dash and fire. Value: a separate MLP. The environment receives the
 * sampled continuous actions clipped to [-1, 1] (the simulation clamps) and 0/1 binaries.
 * At play time the ONNX model gives the means and logits; the runtime takes the means and
 * fires when a logit is positive (deterministic, so matches replay exactly).
 */
import { ACTION_SIZE, OBS_SIZE, Rng } from '../sim';
import type { PpoConfig } from './config';
import { Mlp } from './mlp';
import { RunningNormalizer } from './normalizer';

export const CONTINUOUS = 3; // move, turn, strafe
export const BINARY = 2; // dash, fire
const LOG_2PI = Math.log(2 * Math.PI);

/** The hyper-parameters, each documented where they are set: src/train/config.ts. */
export type { PpoConfig };

export interface UpdateStats {
  readonly update: number;
  readonly steps: number;
  readonly stepsPerSecond: number;
  readonly meanReturn: number | null;
  readonly meanLength: number | null;
  readonly episodes: number;
  readonly policyLoss: number;
  readonly valueLoss: number;
  readonly entropy: number;
  readonly approxKl: number;
  readonly clipFraction: number;
  /** The teacher term's mean loss, and its weight this update (0 without a teacher). */
  readonly teacherLoss: number;
  readonly teacherCoef: number;
  readonly learningRate: number;
}

/** Everything a checkpoint or an export needs. */
export interface PolicyState {
  readonly policy: Mlp;
  readonly value: Mlp;
  readonly logStd: Float32Array;
  readonly normalizer: RunningNormalizer;
}

export function createPolicyState(config: PpoConfig): PolicyState {
  const rng = new Rng(config.seed);
  const random = () => rng.next();
  const logStd = new Float32Array(CONTINUOUS).fill(config.initLogStd);
  return {
    policy: new Mlp([OBS_SIZE, ...config.hidden, ACTION_SIZE], random, { outputGain: 0.01 }),
    value: new Mlp([OBS_SIZE, ...config.hidden, 1], random, { outputGain: 1 }),
    logStd,
    normalizer: new RunningNormalizer(OBS_SIZE, config.obsClip),
  };
}

/** A standard normal draw (Box-Muller) from the trainer's own seeded stream. */
export function gaussian(rng: Rng): number {
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

export const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
/** log(sigmoid(z)) without overflow. */
const logSigmoid = (z: number) => (z >= 0 ? -Math.log1p(Math.exp(-z)) : z - Math.log1p(Math.exp(z)));

/** Log-probability of action `a` (5 numbers) under the outputs `out` (5) and log stds. */
export function logProb(out: ArrayLike<number>, o: number, logStd: ArrayLike<number>, a: ArrayLike<number>, k: number): number {
  let lp = 0;
  for (let i = 0; i < CONTINUOUS; i++) {
    const z = (a[k + i]! - out[o + i]!) / Math.exp(logStd[i]!);
    lp += -0.5 * z * z - logStd[i]! - 0.5 * LOG_2PI;
  }
  for (let j = 0; j < BINARY; j++) {
    const logit = out[o + CONTINUOUS + j]!;
    lp += a[k + CONTINUOUS + j]! > 0.5 ? logSigmoid(logit) : logSigmoid(-logit);
  }
  return lp;
}

/** Entropy of the action distribution for one sample. */
export function entropy(out: ArrayLike<number>, o: number, logStd: ArrayLike<number>): number {
  let h = 0;
  for (let i = 0; i < CONTINUOUS; i++) h += logStd[i]! + 0.5 * (LOG_2PI + 1);
  for (let j = 0; j < BINARY; j++) {
    const p = sigmoid(out[o + CONTINUOUS + j]!);
    h -= p > 0 ? p * Math.log(p) : 0;
    h -= p < 1 ? (1 - p) * Math.log(1 - p) : 0;
  }
  return h;
}

/**
 * The clipped surrogate loss with entropy bonus for a minibatch, and its gradient with
 * respect to the network outputs (dOut) and the log stds (dLogStd), both averaged.
 */
export function policyLossAndGrad(
  out: Float32Array,
  logStd: Float32Array,
  actions: Float32Array,
  oldLogProb: Float32Array,
  advantages: Float32Array,
  n: number,
  clip: number,
  entropyCoef: number,
  dOut: Float32Array,
  dLogStd: Float32Array,
): { loss: number; entropy: number; approxKl: number; clipFraction: number } {
  dLogStd.fill(0);
  let loss = 0;
  let entropySum = 0;
  let kl = 0;
  let clipped = 0;
  const std = [0, 1, 2].map((i) => Math.exp(logStd[i]!));
  for (let s = 0; s < n; s++) {
    const o = s * ACTION_SIZE;
    const lp = logProb(out, o, logStd, actions, o);
    const logRatio = lp - oldLogProb[s]!;
    const ratio = Math.exp(logRatio);
    const adv = advantages[s]!;
    const unclipped = ratio * adv;
    const clippedValue = Math.min(Math.max(ratio, 1 - clip), 1 + clip) * adv;
    loss += -Math.min(unclipped, clippedValue) / n;
    kl += (ratio - 1 - logRatio) / n;
    if (Math.abs(ratio - 1) > clip) clipped++;
    // d(-min(...))/dlogp: -adv * ratio where the unclipped term is the active one, else 0.
    const dLogp = unclipped <= clippedValue ? (-adv * ratio) / n : 0;
    const h = entropy(out, o, logStd);
    entropySum += h;
    for (let i = 0; i < CONTINUOUS; i++) {
      const diff = actions[o + i]! - out[o + i]!;
      const z2 = (diff * diff) / (std[i]! * std[i]!);
      dOut[o + i] = dLogp * (diff / (std[i]! * std[i]!));
      // d logp / d logStd = z^2 - 1; d entropy / d logStd = 1.
      dLogStd[i]! += dLogp * (z2 - 1) - entropyCoef / n;
    }
    for (let j = 0; j < BINARY; j++) {
      const logit = out[o + CONTINUOUS + j]!;
      const p = sigmoid(logit);
      const taken = actions[o + CONTINUOUS + j]! > 0.5 ? 1 : 0;
      // d logp / d logit = taken - p; d entropy / d logit = -logit * p * (1 - p).
      dOut[o + CONTINUOUS + j] = dLogp * (taken - p) + (entropyCoef / n) * logit * p * (1 - p);
    }
  }
  loss -= (entropyCoef * entropySum) / n;
  return { loss, entropy: entropySum / n, approxKl: kl, clipFraction: clipped / n };
}

/**
 * The teacher term (kickstarting) for a minibatch, added into dOut: squared error of the
 * means to the teacher's (clipped) actions and cross-entropy of the dash/fire logits to its
 * 0/1 choices, averaged and weighted by `coef`. Returns the term's loss.
 */
export function addTeacherGrad(out: Float32Array, teacher: Float32Array, n: number, coef: number, dOut: Float32Array): number {
  let loss = 0;
  for (let s = 0; s < n; s++) {
    const o = s * ACTION_SIZE;
    for (let i = 0; i < CONTINUOUS; i++) {
      const diff = out[o + i]! - teacher[o + i]!;
      loss += (0.5 * diff * diff * coef) / n;
      dOut[o + i]! += (coef * diff) / n;
    }
    for (let j = 0; j < BINARY; j++) {
      const logit = out[o + CONTINUOUS + j]!;
      const taken = teacher[o + CONTINUOUS + j]!;
      loss -= (coef * (taken > 0.5 ? logSigmoid(logit) : logSigmoid(-logit))) / n;
      dOut[o + CONTINUOUS + j]! += (coef * (sigmoid(logit) - taken)) / n;
    }
  }
  return loss;
}

/** A PolicyState as plain data (for a worker thread or a message), and back. */
export interface PolicyStateData {
  readonly policy: { readonly sizes: readonly number[]; readonly params: Float32Array };
  readonly value: { readonly sizes: readonly number[]; readonly params: Float32Array };
  readonly logStd: Float32Array;
  readonly normalizer: ReturnType<RunningNormalizer['toJSON']>;
}

export function policyStateData(state: PolicyState): PolicyStateData {
  return {
    policy: { sizes: [...state.policy.sizes], params: state.policy.params.slice() },
    value: { sizes: [...state.value.sizes], params: state.value.params.slice() },
    logStd: state.logStd.slice(),
    normalizer: state.normalizer.toJSON(),
  };
}

/** Build a PolicyState from data (or copy the data into `into`, keeping its objects). */
export function policyStateFrom(data: PolicyStateData, into?: PolicyState): PolicyState {
  const noRandom = () => 0;
  const state = into ?? {
    policy: new Mlp(data.policy.sizes, noRandom),
    value: new Mlp(data.value.sizes, noRandom),
    logStd: new Float32Array(CONTINUOUS),
    normalizer: new RunningNormalizer(data.normalizer.mean.length, data.normalizer.clip),
  };
  state.policy.setParams(data.policy.params);
  state.value.setParams(data.value.params);
  state.logStd.set(data.logStd);
  state.normalizer.mean.set(data.normalizer.mean);
  state.normalizer.var.set(data.normalizer.var);
  state.normalizer.count = data.normalizer.count;
  state.normalizer.touch();
  return state;
}
