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
import { ACTION_SIZE, OBS_SIZE, Rng, deriveSeed } from '../sim';
import { Adam, type AdamState } from './adam';
import type { PpoConfig } from './config';
import type { OpponentDriver, VecEnv, VecEnvState } from './env';
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
function gaussian(rng: Rng): number {
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
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
      dLogStd[i] += dLogp * (z2 - 1) - entropyCoef / n;
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
 * What the trainer carries between updates besides the networks: with it a resumed run
 * continues bit for bit as the run that was stopped would have (same samples, same steps).
 */
export interface TrainerState {
  /** The trainer's random stream (action sampling, minibatch shuffles). */
  readonly rng: number;
  /** Adam's moments and step counts: without them the first steps after a resume are full-size, unaveraged ones. */
  readonly adam: { readonly policy: AdamState; readonly value: AdamState; readonly logStd: AdamState };
  /** The environments mid-episode. */
  readonly env: VecEnvState;
}

export interface TrainHooks {
  /** After each update; `trainer()` copies the trainer's state (for a checkpoint: it costs a copy of every world). */
  onUpdate?(stats: UpdateStats, state: PolicyState, trainer: () => TrainerState): void | Promise<void>;
  /** Called before each update; may switch the opponent (flat: self-play, then heuristic). */
  opponentFor?(stepsDone: number): OpponentDriver | 'self' | undefined;
}

/**
 * Train `state` in place on `env` until config.totalSteps learner decisions. A resumed run
 * passes the steps done and, when its checkpoint has it, the trainer's state: then it
 * continues exactly; without it the optimizer, the random stream and the environments
 * start afresh (seeded by the step count).
 */
export async function trainPpo(
  env: VecEnv,
  state: PolicyState,
  config: PpoConfig,
  hooks: TrainHooks = {},
  startSteps = 0,
  trainer?: TrainerState,
): Promise<void> {
  const rng = new Rng(deriveSeed(config.seed, 'ppo', startSteps));
  const policyAdam = new Adam(state.policy.params.length, { lr: config.learningRate, maxGradNorm: config.maxGradNorm });
  const valueAdam = new Adam(state.value.params.length, { lr: config.learningRate, maxGradNorm: config.maxGradNorm });
  const logStdAdam = new Adam(CONTINUOUS, { lr: config.learningRate });
  const trainerState = (): TrainerState => ({
    rng: rng.state,
    adam: { policy: policyAdam.state(), value: valueAdam.state(), logStd: logStdAdam.state() },
    env: env.state(),
  });
  const logStdGrad = new Float32Array(CONTINUOUS);
  const T = config.rolloutSteps;
  const maxSlots = env.numEnvs * 4;

  // Rollout storage, sized for the widest layout.
  const obsBuf = new Float32Array(T * maxSlots * OBS_SIZE);
  const actBuf = new Float32Array(T * maxSlots * ACTION_SIZE);
  const logpBuf = new Float32Array(T * maxSlots);
  const valBuf = new Float32Array(T * maxSlots);
  const rewBuf = new Float32Array(T * maxSlots);
  const doneBuf = new Uint8Array(T * maxSlots);
  const activeBuf = new Uint8Array(T * maxSlots);
  const advBuf = new Float32Array(T * maxSlots);
  const retBuf = new Float32Array(T * maxSlots);
  const envActions = new Float32Array(maxSlots * ACTION_SIZE);
  const normObs = new Float32Array(maxSlots * OBS_SIZE);

  // Minibatch scratch.
  const mbSize = config.minibatchSize;
  const mbObs = new Float32Array(mbSize * OBS_SIZE);
  const mbAct = new Float32Array(mbSize * ACTION_SIZE);
  const mbLogp = new Float32Array(mbSize);
  const mbAdv = new Float32Array(mbSize);
  const mbRet = new Float32Array(mbSize);
  const dOut = new Float32Array(mbSize * ACTION_SIZE);
  const dValue = new Float32Array(mbSize);

  let steps = startSteps;
  let update = 0;
  let activeOpponent: OpponentDriver | 'self' | undefined;
  const started = performance.now();
  if (trainer) {
    rng.state = trainer.rng;
    policyAdam.restore(trainer.adam.policy);
    valueAdam.restore(trainer.adam.value);
    logStdAdam.restore(trainer.adam.logStd);
    env.restore(trainer.env);
    // The stopped run had this opponent set: switching to it again would reset the episodes.
    activeOpponent = env.currentOpponent;
  } else {
    env.reset();
  }
  while (steps < config.totalSteps) {
    const opponent = hooks.opponentFor?.(steps);
    if (opponent !== undefined && opponent !== activeOpponent) {
      env.setOpponent(opponent);
      activeOpponent = opponent;
    }
    const S = env.slots;
    const fraction = 1 - steps / config.totalSteps; // global, so a resumed run keeps the schedule
    const lr = config.annealLearningRate ? config.learningRate * Math.max(fraction, 0.05) : config.learningRate;

    // 1. Rollout: act with the current policy, record what happened.
    for (let t = 0; t < T; t++) {
      state.normalizer.update(env.obs, S);
      state.normalizer.normalize(env.obs, S, normObs);
      obsBuf.set(normObs.subarray(0, S * OBS_SIZE), t * S * OBS_SIZE);
      activeBuf.set(env.active.subarray(0, S), t * S);
      const out = state.policy.forward(normObs, S);
      const values = state.value.forward(normObs, S);
      for (let s = 0; s < S; s++) {
        const o = s * ACTION_SIZE;
        const k = (t * S + s) * ACTION_SIZE;
        for (let i = 0; i < CONTINUOUS; i++) {
          const a = out[o + i]! + Math.exp(state.logStd[i]!) * gaussian(rng);
          actBuf[k + i] = a;
          envActions[o + i] = Math.max(-1, Math.min(1, a));
        }
        for (let j = 0; j < BINARY; j++) {
          const b = rng.next() < sigmoid(out[o + CONTINUOUS + j]!) ? 1 : 0;
          actBuf[k + CONTINUOUS + j] = b;
          envActions[o + CONTINUOUS + j] = b;
        }
        logpBuf[t * S + s] = logProb(out, o, state.logStd, actBuf, k);
        valBuf[t * S + s] = values[s]!;
      }
      env.step(envActions);
      rewBuf.set(env.rewards.subarray(0, S), t * S);
      doneBuf.set(env.dones.subarray(0, S), t * S);
    }
    steps += T * S;

    // 2. Generalised advantage estimation, bootstrapping from the value of the last observation.
    state.normalizer.normalize(env.obs, S, normObs);
    const lastValues = state.value.forward(normObs, S);
    for (let s = 0; s < S; s++) {
      let gae = 0;
      for (let t = T - 1; t >= 0; t--) {
        const i = t * S + s;
        const notDone = 1 - doneBuf[i]!;
        const nextValue = t === T - 1 ? lastValues[s]! : valBuf[i + S]!;
        const delta = rewBuf[i]! + config.gamma * nextValue * notDone - valBuf[i]!;
        gae = delta + config.gamma * config.gaeLambda * notDone * gae;
        advBuf[i] = gae;
        retBuf[i] = gae + valBuf[i]!;
      }
    }

    // 3. Optimise on the samples that count (agents in the episode and alive).
    const indices: number[] = [];
    for (let i = 0; i < T * S; i++) if (activeBuf[i]) indices.push(i);
    let policyLoss = 0;
    let valueLoss = 0;
    let entropySum = 0;
    let kl = 0;
    let clipFraction = 0;
    let batches = 0;
    for (let epoch = 0; epoch < config.epochs; epoch++) {
      shuffle(indices, rng);
      // Equal minibatches of at most minibatchSize cover every sample (a short rollout,
      // with many agents dead or finished, still trains).
      const count = Math.ceil(indices.length / mbSize);
      for (let m = 0; m < count; m++) {
        const start = Math.floor((m * indices.length) / count);
        const size = Math.floor(((m + 1) * indices.length) / count) - start;
        let advMean = 0;
        for (let b = 0; b < size; b++) {
          const i = indices[start + b]!;
          mbObs.set(obsBuf.subarray(i * OBS_SIZE, (i + 1) * OBS_SIZE), b * OBS_SIZE);
          mbAct.set(actBuf.subarray(i * ACTION_SIZE, (i + 1) * ACTION_SIZE), b * ACTION_SIZE);
          mbLogp[b] = logpBuf[i]!;
          mbAdv[b] = advBuf[i]!;
          mbRet[b] = retBuf[i]!;
          advMean += advBuf[i]! / size;
        }
        let advVar = 0;
        for (let b = 0; b < size; b++) advVar += (mbAdv[b]! - advMean) ** 2 / size;
        const advStd = Math.sqrt(advVar) + 1e-8;
        for (let b = 0; b < size; b++) mbAdv[b] = (mbAdv[b]! - advMean) / advStd;

        const out = state.policy.forward(mbObs, size);
        const r = policyLossAndGrad(out, state.logStd, mbAct, mbLogp, mbAdv, size, config.clip, config.entropyCoef, dOut, logStdGrad);
        state.policy.zeroGrad();
        state.policy.backward(dOut);
        policyAdam.step(state.policy.params, state.policy.grads, lr);
        logStdAdam.step(state.logStd, logStdGrad, lr);

        const v = state.value.forward(mbObs, size);
        let vl = 0;
        for (let b = 0; b < size; b++) {
          const diff = v[b]! - mbRet[b]!;
          vl += (0.5 * diff * diff) / size;
          dValue[b] = diff / size;
        }
        state.value.zeroGrad();
        state.value.backward(dValue);
        valueAdam.step(state.value.params, state.value.grads, lr);

        policyLoss += r.loss;
        valueLoss += vl;
        entropySum += r.entropy;
        kl += r.approxKl;
        clipFraction += r.clipFraction;
        batches++;
      }
    }

    update++;
    const episodes = env.completed.splice(0);
    const seconds = (performance.now() - started) / 1000;
    const stats: UpdateStats = {
      update,
      steps,
      stepsPerSecond: (steps - startSteps) / seconds,
      meanReturn: episodes.length ? episodes.reduce((a, e) => a + e.return, 0) / episodes.length : null,
      meanLength: episodes.length ? episodes.reduce((a, e) => a + e.length, 0) / episodes.length : null,
      episodes: episodes.length,
      policyLoss: policyLoss / Math.max(1, batches),
      valueLoss: valueLoss / Math.max(1, batches),
      entropy: entropySum / Math.max(1, batches),
      approxKl: kl / Math.max(1, batches),
      clipFraction: clipFraction / Math.max(1, batches),
      learningRate: lr,
    };
    await hooks.onUpdate?.(stats, state, trainerState);
  }
}

function shuffle(a: number[], rng: Rng): void {
  for (let i = a.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const t = a[i]!;
    a[i] = a[j]!;
    a[j] = t;
  }
}
