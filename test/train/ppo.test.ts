import { describe, expect, it } from 'vitest';
import { ACTION_SIZE, OBS_SIZE, Rng } from '../../src/sim';
import type { TeacherName } from '../../src/train/config';
import { Adam } from '../../src/train/adam';
import { Mlp } from '../../src/train/mlp';
import {
  BINARY,
  CONTINUOUS,
  type PolicyState,
  type PpoConfig,
  type UpdateStats,
  createPolicyState,
  entropy,
  logProb,
  policyLossAndGrad,
} from '../../src/train/ppo';
import type { ModelName } from '../../src/train/scenarios';
import { trainPpo } from '../../src/train/trainer';
import { TINY } from './fixtures';

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

async function train(config: PpoConfig, scenario: ModelName = 'navigate', teacher: TeacherName | null = null) {
  const state = createPolicyState(config);
  const stats: UpdateStats[] = [];
  await trainPpo({ scenario, config, phases: [{ opponents: ['heuristic'], until: 1 }], teacher }, state, { onUpdate: (s) => void stats.push(s) });
  return { state, stats };
}

const snapshot = (s: PolicyState) => ({
  policy: Array.from(s.policy.params),
  value: Array.from(s.value.params),
  logStd: Array.from(s.logStd),
  mean: Array.from(s.normalizer.mean),
  var: Array.from(s.normalizer.var),
  count: s.normalizer.count,
});

describe('PPO distribution math', () => {
  it('logProb is the Gaussian log-density of move/turn/strafe plus the Bernoulli log-mass of dash/fire', () => {
    // Two samples in one buffer: offsets must be honoured.
    const out = Float32Array.from([9, 9, 9, 9, 9, 0.3, -0.2, 0.5, 1.2, -0.7]);
    const logStd = Float32Array.from([-0.5, 0, 0.3]);
    const actions = Float32Array.from([0.1, 0.4, 0.5, 1, 0, 7, 7, 7, 7, 7]);
    const density = (x: number, mu: number, sigma: number) => Math.exp(-((x - mu) ** 2) / (2 * sigma * sigma)) / (sigma * Math.sqrt(2 * Math.PI));
    const mu = [0.3, -0.2, 0.5].map(Math.fround);
    const sd = [-0.5, 0, 0.3].map((l) => Math.exp(Math.fround(l)));
    const a = [0.1, 0.4, 0.5].map(Math.fround);
    const expected =
      Math.log(density(a[0]!, mu[0]!, sd[0]!) * density(a[1]!, mu[1]!, sd[1]!) * density(a[2]!, mu[2]!, sd[2]!)) +
      Math.log(sigmoid(Math.fround(1.2))) + // dash taken
      Math.log(1 - sigmoid(Math.fround(-0.7))); // fire not taken
    expect(logProb(out, 5, logStd, actions, 0)).toBeCloseTo(expected, 10);

    // The other branch of each binary, and extreme logits stay finite (no log(0)).
    const flipped = Float32Array.from([0.1, 0.4, 0.5, 0, 1]);
    const expectedFlipped = expected - Math.log(sigmoid(Math.fround(1.2))) + Math.log(1 - sigmoid(Math.fround(1.2))) - Math.log(1 - sigmoid(Math.fround(-0.7))) + Math.log(sigmoid(Math.fround(-0.7)));
    expect(logProb(out, 5, logStd, flipped, 0)).toBeCloseTo(expectedFlipped, 10);
    const extreme = Float32Array.from([0, 0, 0, 800, -800]);
    const lp = logProb(extreme, 0, Float32Array.from([0, 0, 0]), Float32Array.from([0, 0, 0, 0, 1]), 0);
    expect(lp).toBeCloseTo(-1.5 * Math.log(2 * Math.PI) - 1600, 6);
  });

  it('entropy matches the closed form: sum 0.5*log(2*pi*e*sigma^2) plus the Bernoulli entropies', () => {
    const out = Float32Array.from([0.3, -0.2, 0.5, 1.2, -3]);
    const logStd = Float32Array.from([-0.5, 0, 0.3]);
    const bern = (p: number) => -p * Math.log(p) - (1 - p) * Math.log(1 - p);
    let expected = 0;
    for (const l of logStd) expected += 0.5 * Math.log(2 * Math.PI * Math.E * Math.exp(2 * l));
    expected += bern(sigmoid(Math.fround(1.2))) + bern(sigmoid(-3));
    expect(entropy(out, 0, logStd)).toBeCloseTo(expected, 10);
    // At logit 0 each binary has its maximum, log 2; saturated logits give 0, not NaN.
    const fair = entropy(Float32Array.from([0, 0, 0, 0, 0]), 0, Float32Array.from([0, 0, 0]));
    expect(fair).toBeCloseTo(1.5 * Math.log(2 * Math.PI * Math.E) + 2 * Math.LN2, 10);
    const saturated = entropy(Float32Array.from([0, 0, 0, 1000, -1000]), 0, Float32Array.from([0, 0, 0]));
    expect(saturated).toBeCloseTo(1.5 * Math.log(2 * Math.PI * Math.E), 10);
  });

  it('entropy is minus the expected log-probability (Monte Carlo, 200k draws)', () => {
    const out = Float32Array.from([0.2, -0.4, 0.1, 0.8, -1.5]);
    const logStd = Float32Array.from([-0.3, 0.2, -1]);
    const rng = new Rng(3);
    const normal = () => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
    const a = new Float32Array(5);
    let sum = 0;
    const n = 200_000;
    for (let k = 0; k < n; k++) {
      for (let i = 0; i < 3; i++) a[i] = out[i]! + Math.exp(logStd[i]!) * normal();
      for (let j = 0; j < 2; j++) a[3 + j] = rng.next() < sigmoid(out[3 + j]!) ? 1 : 0;
      sum -= logProb(out, 0, logStd, a, 0);
    }
    // Standard error of the mean is about 0.003 here.
    expect(Math.abs(sum / n - entropy(out, 0, logStd))).toBeLessThan(0.01);
  });
});

describe('policyLossAndGrad', () => {
  const clip = 0.2;
  const entropyCoef = 0.05;
  // [target ratio, advantage]: unclipped and clipped regions, positive and negative advantages.
  const cases: [number, number][] = [
    [1.1, 1.3], // inside the clip range, A > 0: unclipped term active
    [0.95, -0.8], // inside, A < 0
    [1.5, 0.9], // A > 0, ratio above 1 + clip: clipped, no policy gradient
    [0.5, 1.1], // A > 0, ratio below 1 - clip: the unclipped (smaller) term is active
    [1.5, -0.7], // A < 0, ratio above 1 + clip: the unclipped (more negative) term is active
    [0.5, -1.2], // A < 0, ratio below 1 - clip: clipped, no policy gradient
  ];
  const n = cases.length;
  const rng = new Rng(99);
  const out = Float32Array.from({ length: n * ACTION_SIZE }, (_, i) => (i % ACTION_SIZE < CONTINUOUS ? rng.next() - 0.5 : (rng.next() - 0.5) * 4));
  const logStd = Float32Array.from([-0.4, 0.1, -0.9]);
  const actions = new Float32Array(n * ACTION_SIZE);
  cases.forEach((_, s) => {
    for (let i = 0; i < CONTINUOUS; i++) actions[s * ACTION_SIZE + i] = out[s * ACTION_SIZE + i]! + (rng.next() - 0.5) * 1.5;
    for (let j = 0; j < BINARY; j++) actions[s * ACTION_SIZE + CONTINUOUS + j] = (s + j) % 2;
  });
  const advantages = Float32Array.from(cases.map(([, adv]) => adv));
  const oldLogProb = Float32Array.from(cases.map(([ratio], s) => logProb(out, s * ACTION_SIZE, logStd, actions, s * ACTION_SIZE) - Math.log(ratio)));
  const loss = (o: Float32Array, ls: Float32Array) =>
    policyLossAndGrad(o, ls, actions, oldLogProb, advantages, n, clip, entropyCoef, new Float32Array(n * ACTION_SIZE), new Float32Array(CONTINUOUS));

  /** Central difference over float32 inputs, dividing by the step actually taken after rounding. */
  function numericGrad(which: 'out' | 'logStd', index: number, h = 1e-3): number {
    const base = which === 'out' ? out : logStd;
    const plus = base.slice();
    const minus = base.slice();
    plus[index] = Math.fround(base[index]! + h);
    minus[index] = Math.fround(base[index]! - h);
    const lPlus = which === 'out' ? loss(plus, logStd).loss : loss(out, plus).loss;
    const lMinus = which === 'out' ? loss(minus, logStd).loss : loss(out, minus).loss;
    return (lPlus - lMinus) / (plus[index] - minus[index]);
  }

  it('reports the clip fraction, and the samples sit where the test means them to', () => {
    const r = loss(out, logStd);
    expect(r.clipFraction).toBeCloseTo(4 / 6, 12);
    expect(r.entropy).toBeCloseTo(cases.reduce((sum, _, s) => sum + entropy(out, s * ACTION_SIZE, logStd), 0) / n, 10);
    // The loss is the documented objective, computed independently here.
    let expected = 0;
    cases.forEach(([, adv], s) => {
      const ratio = Math.exp(logProb(out, s * ACTION_SIZE, logStd, actions, s * ACTION_SIZE) - oldLogProb[s]!);
      expected -= Math.min(ratio * adv, Math.min(Math.max(ratio, 1 - clip), 1 + clip) * adv) / n;
      expected -= (entropyCoef * entropy(out, s * ACTION_SIZE, logStd)) / n;
    });
    expect(r.loss).toBeCloseTo(expected, 6);
  });

  it('its gradients match central finite differences of its own loss, for every output and log std', () => {
    const dOut = new Float32Array(n * ACTION_SIZE);
    const dLogStd = new Float32Array(CONTINUOUS).fill(123); // must be overwritten, not accumulated
    policyLossAndGrad(out, logStd, actions, oldLogProb, advantages, n, clip, entropyCoef, dOut, dLogStd);
    let largest = 0;
    for (let i = 0; i < dOut.length; i++) {
      const numeric = numericGrad('out', i);
      largest = Math.max(largest, Math.abs(numeric));
      expect(Math.abs(dOut[i]! - numeric), `dOut[${i}] (sample ${Math.floor(i / ACTION_SIZE)}): ${dOut[i]} vs ${numeric}`).toBeLessThan(1e-5 + 1e-3 * Math.abs(numeric));
    }
    for (let i = 0; i < CONTINUOUS; i++) {
      const numeric = numericGrad('logStd', i);
      expect(Math.abs(dLogStd[i]! - numeric), `dLogStd[${i}]: ${dLogStd[i]} vs ${numeric}`).toBeLessThan(1e-5 + 1e-3 * Math.abs(numeric));
    }
    expect(largest).toBeGreaterThan(0.05); // the check is not vacuous
    // Clipped samples pass no policy gradient to the means: only the entropy bonus, which ignores means.
    for (const s of [2, 5]) for (let i = 0; i < CONTINUOUS; i++) expect(Math.abs(dOut[s * ACTION_SIZE + i]!)).toBe(0);
    for (const s of [0, 1, 3, 4]) expect(Math.abs(dOut[s * ACTION_SIZE]!)).toBeGreaterThan(1e-4);
  });

  it('at ratio 1 without entropy: loss is minus the mean advantage, KL and clip fraction are 0', () => {
    const current = Float32Array.from(cases.map((_, s) => logProb(out, s * ACTION_SIZE, logStd, actions, s * ACTION_SIZE)));
    const r = policyLossAndGrad(out, logStd, actions, current, advantages, n, clip, 0, new Float32Array(n * ACTION_SIZE), new Float32Array(3));
    expect(r.loss).toBeCloseTo(-advantages.reduce((a, b) => a + b, 0) / n, 6);
    expect(r.approxKl).toBeCloseTo(0, 12);
    expect(r.clipFraction).toBe(0);
  });
});

describe('learning', () => {
  it('one synthetic batch: following the gradient makes the rewarded actions more likely', () => {
    // Rewarded: firing, and moving further forward than the current mean.
    const rng = new Rng(5);
    const policy = new Mlp([OBS_SIZE, 16, ACTION_SIZE], () => rng.next(), { outputGain: 0.01 });
    const adam = new Adam(policy.params.length, { lr: 1e-2 });
    const logStd = Float32Array.from([-0.5, -0.5, -0.5]);
    const n = 128;
    const obs = Float32Array.from({ length: n * OBS_SIZE }, () => rng.next() * 2 - 1);
    const stats = () => {
      const o = policy.forward(obs, n);
      let fire = 0;
      let move = 0;
      for (let s = 0; s < n; s++) {
        fire += sigmoid(o[s * ACTION_SIZE + 4]!) / n;
        move += o[s * ACTION_SIZE]! / n;
      }
      return { fire, move };
    };
    const before = stats();
    const dOut = new Float32Array(n * ACTION_SIZE);
    const dLogStd = new Float32Array(3);
    for (let iteration = 0; iteration < 5; iteration++) {
      // Sample a fresh batch from the current policy, as a rollout would.
      const out = policy.forward(obs, n).slice();
      const actions = new Float32Array(n * ACTION_SIZE);
      const advantages = new Float32Array(n);
      for (let s = 0; s < n; s++) {
        const k = s * ACTION_SIZE;
        actions[k] = out[k]! + Math.exp(logStd[0]!) * (rng.next() * 2 - 1);
        actions[k + 4] = rng.next() < sigmoid(out[k + 4]!) ? 1 : 0;
        advantages[s] = (actions[k + 4] ? 1 : -1) + (actions[k] > out[k]! ? 0.5 : -0.5);
      }
      const oldLogProb = Float32Array.from({ length: n }, (_, s) => logProb(out, s * ACTION_SIZE, logStd, actions, s * ACTION_SIZE));
      for (let epoch = 0; epoch < 4; epoch++) {
        const current = policy.forward(obs, n);
        policyLossAndGrad(current, logStd, actions, oldLogProb, advantages, n, 0.2, 0, dOut, dLogStd);
        policy.zeroGrad();
        policy.backward(dOut);
        adam.step(policy.params, policy.grads);
      }
    }
    const after = stats();
    expect(before.fire).toBeCloseTo(0.5, 1);
    expect(after.fire).toBeGreaterThan(before.fire + 0.15);
    expect(after.move).toBeGreaterThan(before.move + 0.1);
  });

  it('trainPpo is deterministic for a seed, changes the parameters, and counts steps per update', async () => {
    const a = await train(TINY);
    const b = await train(TINY);
    expect(snapshot(b.state)).toEqual(snapshot(a.state));
    const strip = (s: UpdateStats) => ({ ...s, stepsPerSecond: 0 });
    expect(b.stats.map(strip)).toEqual(a.stats.map(strip));

    const initial = snapshot(createPolicyState(TINY));
    const trained = snapshot(a.state);
    expect(trained.policy).not.toEqual(initial.policy);
    expect(trained.value).not.toEqual(initial.value);
    expect(trained.logStd).not.toEqual(initial.logStd);
    expect(trained.count).toBeGreaterThan(100); // the normaliser saw every rollout observation
    expect(trained.policy.every(Number.isFinite) && trained.value.every(Number.isFinite)).toBe(true);

    // 2 envs x 2 learners x 16 steps per update, until totalSteps.
    expect(a.stats.map((s) => s.update)).toEqual([1, 2, 3]);
    expect(a.stats.map((s) => s.steps)).toEqual([64, 128, 192]);
    for (const s of a.stats) {
      expect(s.learningRate).toBeLessThanOrEqual(TINY.learningRate);
      expect(Number.isFinite(s.policyLoss) && Number.isFinite(s.valueLoss) && s.entropy > 0).toBe(true);
    }
    expect(a.stats[0]!.learningRate).toBeGreaterThan(a.stats[2]!.learningRate); // annealed

    const other = await train({ ...TINY, seed: 8 });
    expect(snapshot(other.state).policy).not.toEqual(trained.policy);
  });

  // BUG (src/train/ppo.ts, the minibatch loop `for (let start = 0; start + mbSize <= indices.length; ...)`):
  // when a rollout has fewer active samples than minibatchSize, no minibatch runs and the update
  // silently does nothing (policyLoss, entropy and KL are all reported as 0). With the shipped
  // config (minibatch 256, 64 rollout steps) `npm run train -- --envs 1` gives 128 samples per
  // update and trains nothing at all; with `--envs 2` every update where an agent was dead or had
  // left (retreat) is skipped. The update should use a smaller last minibatch (or all samples), or
  // trainPpo should refuse such a config with an error naming minibatchSize.
  it('a rollout smaller than one minibatch still trains (or is refused)', async () => {
    const config = { ...TINY, minibatchSize: 128 }; // 64 samples per update
    const initial = snapshot(createPolicyState(config));
    let error: Error | null = null;
    let trained: PolicyState | null = null;
    try {
      trained = (await train(config)).state;
    } catch (err) {
      error = err as Error;
    }
    if (error) expect(error.message).toMatch(/minibatch/i);
    else expect(snapshot(trained!).policy).not.toEqual(initial.policy);
  });

  it('navigate: a few thousand steps raise the mean return (3 seeds, first vs last 4 updates)', async () => {
    const config: PpoConfig = {
      ...TINY,
      totalSteps: 16 * 256,
      numEnvs: 4,
      rolloutSteps: 32,
      epochs: 4,
      minibatchSize: 64,
      entropyCoef: 0,
      annealLearningRate: false,
      horizonSteps: 32,
    };
    let first = 0;
    let last = 0;
    for (const seed of [1, 2, 3]) {
      const { stats } = await train({ ...config, seed });
      expect(stats).toHaveLength(16);
      const mean = (xs: UpdateStats[]) => xs.reduce((sum, s) => sum + s.meanReturn!, 0) / xs.length / 3;
      first += mean(stats.slice(0, 4));
      last += mean(stats.slice(-4));
    }
    // Measured: about 0.0 -> 0.26 (a 32-step episode walking straight at the zone earns ~1.2).
    expect(last).toBeGreaterThan(first + 0.1);
  });
});
