import * as ort from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Mlp } from '../../src/train/mlp';
import {
  ACTION_MEAN_OUTPUT_NAME,
  OBS_INPUT_NAME,
  exportPolicyOnnx,
  normalizeObservation,
  referenceForward,
  type PolicyExportOptions,
} from '../../src/train/onnxExport';
import { inspectOnnx } from '../../src/train/onnxInspect';
import { mulberry32 } from '../../src/stats';

// onnxruntime-web resolves to its Node build (dist/ort.node.min.mjs) under Node's "node" export
// condition and loads the wasm from its own dist/ folder. One thread: the threaded build would
// otherwise start worker_threads that keep the test process alive.
ortWeb.env.wasm.numThreads = 1;

const OBS_DIM = 20;
const N_OUT = 5;
const rng = mulberry32(2024);
const mlp = new Mlp([OBS_DIM, 64, 64, N_OUT], rng, { outputGain: 1 });
for (let i = 0; i < mlp.params.length; i++) mlp.params[i] = mlp.params[i]! + (rng() - 0.5) * 0.1; // non-zero biases
const policy: PolicyExportOptions = {
  mlp,
  obsMean: Float32Array.from({ length: OBS_DIM }, () => (rng() - 0.5) * 20),
  obsVar: Float32Array.from({ length: OBS_DIM }, () => 0.01 + rng() * 50),
  clip: 5,
  epsilon: 1e-8,
  docString: 'parity test policy',
  metadata: { skill: 'test', obs_dim: String(OBS_DIM), sizes: '20,64,64,5' },
};
const bytes = exportPolicyOnnx(policy);

/** Observations around the running mean, with a few far outliers so Clip is exercised. */
function randomObs(batch: number): Float32Array {
  return Float32Array.from({ length: batch * OBS_DIM }, (_, i) => {
    const d = i % OBS_DIM;
    const spread = Math.sqrt(policy.obsVar[d]!) * (rng() < 0.1 ? 20 : 2);
    return policy.obsMean[d]! + (rng() - 0.5) * 2 * spread;
  });
}

type Runtime = { name: string; session: ort.InferenceSession; run(obs: Float32Array, batch: number): Promise<Float32Array> };
const runtimes: Runtime[] = [];

beforeAll(async () => {
  const nodeSession = await ort.InferenceSession.create(bytes);
  const webSession = await ortWeb.InferenceSession.create(bytes);
  runtimes.push(
    {
      name: 'onnxruntime-node',
      session: nodeSession,
      async run(obs, batch) {
        const out = await nodeSession.run({ [OBS_INPUT_NAME]: new ort.Tensor('float32', obs, [batch, OBS_DIM]) });
        expect(out[ACTION_MEAN_OUTPUT_NAME]!.dims).toEqual([batch, N_OUT]);
        return out[ACTION_MEAN_OUTPUT_NAME]!.data as Float32Array;
      },
    },
    {
      name: 'onnxruntime-web (wasm)',
      session: webSession as unknown as ort.InferenceSession,
      async run(obs, batch) {
        const out = await webSession.run({ [OBS_INPUT_NAME]: new ortWeb.Tensor('float32', obs, [batch, OBS_DIM]) });
        expect(out[ACTION_MEAN_OUTPUT_NAME]!.dims).toEqual([batch, N_OUT]);
        return out[ACTION_MEAN_OUTPUT_NAME]!.data as Float32Array;
      },
    },
  );
});

afterAll(async () => {
  for (const r of runtimes) await r.session.release();
});

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

describe('exportPolicyOnnx parity', () => {
  for (const batch of [1, 37]) {
    it(`JS reference, onnxruntime-node and onnxruntime-web agree within 1e-5 at batch ${batch}`, async () => {
      const obs = randomObs(batch);
      const ref = referenceForward(policy, obs, batch);
      const [nodeOut, webOut] = await Promise.all(runtimes.map((r) => r.run(obs, batch)));
      expect(ref.some((v) => Math.abs(v) > 0.1)).toBe(true); // outputs are not trivially ~0
      expect(maxAbsDiff(nodeOut!, ref)).toBeLessThan(1e-5);
      expect(maxAbsDiff(webOut!, ref)).toBeLessThan(1e-5);
      expect(maxAbsDiff(nodeOut!, webOut!)).toBeLessThan(1e-5);
    });
  }

  it('the Mlp training forward agrees with the reference on normalised inputs', () => {
    const batch = 37;
    const obs = randomObs(batch);
    const y = mlp.forward(normalizeObservation(obs, policy), batch);
    expect(maxAbsDiff(y, referenceForward(policy, obs, batch))).toBeLessThan(1e-5);
  });

  it('normalizeObservation is bit-identical to the graph (identity network) and clips', async () => {
    const identity = new Mlp([OBS_DIM, OBS_DIM], mulberry32(1));
    identity.params.fill(0);
    for (let k = 0; k < OBS_DIM; k++) identity.params[k * OBS_DIM + k] = 1;
    const session = await ort.InferenceSession.create(exportPolicyOnnx({ ...policy, mlp: identity }));
    const batch = 50;
    const obs = randomObs(batch);
    const out = await session.run({ obs: new ort.Tensor('float32', obs, [batch, OBS_DIM]) });
    await session.release();
    const js = normalizeObservation(obs, policy);
    expect(Array.from(out.action_mean!.data as Float32Array)).toEqual(Array.from(js));
    expect(js.some((v) => v === policy.clip) || js.some((v) => v === -policy.clip)).toBe(true);
    expect(js.every((v) => Math.abs(v) <= policy.clip)).toBe(true);
    // And it is the documented formula.
    for (let i = 0; i < obs.length; i++) {
      const d = i % OBS_DIM;
      const z = (obs[i]! - policy.obsMean[d]!) / Math.sqrt(policy.obsVar[d]! + policy.epsilon);
      expect(js[i]).toBeCloseTo(Math.max(-policy.clip, Math.min(policy.clip, z)), 4);
    }
  });
});

describe('ONNX contract', () => {
  it('declares obs [batch, 20] -> action_mean [batch, 5] with a symbolic batch dimension', () => {
    const info = inspectOnnx(bytes);
    expect(info.inputs).toEqual([{ name: 'obs', elemType: 1, shape: ['batch', OBS_DIM] }]);
    expect(info.outputs).toEqual([{ name: 'action_mean', elemType: 1, shape: ['batch', N_OUT] }]);
    expect(info.opsets).toEqual({ '': 13 });
    expect(info.producerName).toBe('hillmind');
    expect(info.docString).toBe('parity test policy');
    expect(info.metadata).toEqual(policy.metadata);
    expect(info.opTypes).toEqual(['Sub', 'Div', 'Clip', 'Gemm', 'Tanh']);
  });

  it('both runtimes see the same names and dynamic shapes', () => {
    for (const r of runtimes) {
      expect(r.session.inputNames, r.name).toEqual(['obs']);
      expect(r.session.outputNames, r.name).toEqual(['action_mean']);
      const [inMeta] = r.session.inputMetadata;
      const [outMeta] = r.session.outputMetadata;
      expect(inMeta?.isTensor && inMeta.shape, r.name).toEqual(['batch', OBS_DIM]);
      expect(outMeta?.isTensor && outMeta.shape, r.name).toEqual(['batch', N_OUT]);
    }
  });

  it('rejects mismatched export inputs', () => {
    expect(() => exportPolicyOnnx({ ...policy, obsMean: new Float32Array(3) })).toThrow(/obsMean\/obsVar must have 20/);
    expect(() => exportPolicyOnnx({ ...policy, clip: 0 })).toThrow(/clip must be > 0/);
  });
});

describe('inspectOnnx on bad bytes', () => {
  const cases: [string, Uint8Array][] = [
    ['empty', new Uint8Array(0)],
    ['truncated', bytes.slice(0, Math.floor(bytes.length / 2))],
    ['text', new TextEncoder().encode('this is not a model\n')],
    ['random', Uint8Array.from({ length: 4096 }, () => Math.floor(rng() * 256))],
    ['JSON', new TextEncoder().encode(JSON.stringify({ graph: { node: [] } }))],
  ];
  for (const [name, bad] of cases) {
    it(`gives a clear error for ${name} bytes`, () => {
      expect(() => inspectOnnx(bad, 'model.onnx')).toThrow(/^model\.onnx is not a valid ONNX model: \S/);
    });
  }

  it('onnxruntime itself also refuses truncated bytes', async () => {
    await expect(ort.InferenceSession.create(bytes.slice(0, Math.floor(bytes.length / 2)))).rejects.toThrow();
  });
});
