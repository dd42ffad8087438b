/**
 * The network that plays trained policies: it reads the exported graph, agrees with
 * onnxruntime and the training code's reference to float32 rounding, gives a batch the
 * same bits as its rows one at a time (a tournament batches, the page does not), and
 * refuses graphs it does not compute, naming what differs.
 */
import * as ortNode from 'onnxruntime-node';
import onnxProto from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { OBS_SIZE } from '../../src/sim';
import { PolicyNetwork, readPolicyNetwork } from '../../src/skills/policyNetwork';
import { exportPolicyOnnx, referenceForward } from '../../src/train/onnxExport';
import { sampleObservations, tinyState } from '../train/fixtures';

const { onnx } = onnxProto;
const state = tinyState(4);
const options = { mlp: state.policy, ...state.normalizer.snapshot() };
const bytes = exportPolicyOnnx(options);
const OUT = state.policy.sizes.at(-1)!;

function run(network: PolicyNetwork, obs: Float32Array, count: number): Float32Array {
  return network.forward(obs, count, new Float32Array(count * network.outputSize));
}

/** The exported model with its Gemm weights stored transposed (transB = 1), as PyTorch exports them. */
function transposedGraph(): Uint8Array {
  const model = onnx.ModelProto.decode(bytes);
  for (const node of model.graph!.node!) {
    if (node.opType !== 'Gemm') continue;
    const w = model.graph!.initializer!.find((t) => t.name === node.input![1])!;
    const [nIn, nOut] = w.dims!.map(Number) as [number, number];
    const raw = w.rawData!;
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    const flipped = new Uint8Array(raw.length);
    const out = new DataView(flipped.buffer);
    for (let k = 0; k < nIn; k++) for (let j = 0; j < nOut; j++) out.setFloat32((j * nIn + k) * 4, view.getFloat32((k * nOut + j) * 4, true), true);
    w.rawData = flipped;
    w.dims = [nOut, nIn];
    node.attribute = [onnx.AttributeProto.create({ name: 'transB', type: onnx.AttributeProto.AttributeType.INT, i: 1 })];
  }
  return onnx.ModelProto.encode(model).finish();
}

describe('PolicyNetwork', () => {
  const network = new PolicyNetwork(readPolicyNetwork(bytes, 'tiny.onnx'));

  it('agrees with onnxruntime-node and the training reference to 1e-5', async () => {
    const count = 64;
    const obs = sampleObservations(count, 9);
    const mine = run(network, obs, count);
    const session = await ortNode.InferenceSession.create(bytes);
    const theirs = (await session.run({ obs: new ortNode.Tensor('float32', obs, [count, OBS_SIZE]) })).action_mean!.data as Float32Array;
    const reference = referenceForward(options, obs, count);
    expect(mine.length).toBe(count * OUT);
    expect(mine.some((v) => Math.abs(v) > 0.1)).toBe(true);
    for (let i = 0; i < mine.length; i++) {
      expect(Math.abs(mine[i]! - theirs[i]!), `onnxruntime ${i}`).toBeLessThan(1e-5);
      expect(Math.abs(mine[i]! - reference[i]!), `reference ${i}`).toBeLessThan(1e-5);
    }
    await session.release();
  });

  it('gives a batch the same bits as its rows one at a time', () => {
    const count = 37;
    const obs = sampleObservations(count, 3);
    const batch = run(network, obs, count);
    for (let row = 0; row < count; row++) {
      const single = run(network, obs.subarray(row * OBS_SIZE, (row + 1) * OBS_SIZE), 1);
      expect(Array.from(single)).toEqual(Array.from(batch.subarray(row * OUT, (row + 1) * OUT)));
    }
  });

  it('reads weights stored transposed (transB = 1) to the same bits', () => {
    const obs = sampleObservations(16, 5);
    const other = new PolicyNetwork(readPolicyNetwork(transposedGraph(), 'transposed.onnx'));
    expect(Array.from(run(other, obs, 16))).toEqual(Array.from(run(network, obs, 16)));
  });

  it('refuses a graph it does not compute, naming the node and what it expected', () => {
    const model = onnx.ModelProto.decode(bytes);
    const tanh = model.graph!.node!.find((n) => n.opType === 'Tanh')!;
    tanh.opType = 'Relu';
    expect(() => readPolicyNetwork(onnx.ModelProto.encode(model).finish(), 'relu.onnx')).toThrow(
      /^relu\.onnx is not a Hillmind policy network: node 4 is Relu, expected Tanh \(expected Sub, Div, Clip, then Gemm and Tanh layers ending in a Gemm\)$/,
    );
    expect(() => readPolicyNetwork(new Uint8Array([1, 2, 3, 4, 5]), 'junk.onnx')).toThrow(/^junk\.onnx is not a Hillmind policy network: /);
    const scaled = onnx.ModelProto.decode(bytes);
    scaled.graph!.node![3]!.attribute = [onnx.AttributeProto.create({ name: 'alpha', type: onnx.AttributeProto.AttributeType.FLOAT, f: 2 })];
    expect(() => readPolicyNetwork(onnx.ModelProto.encode(scaled).finish(), 'alpha.onnx')).toThrow(/node 3 is a Gemm with alpha 2, beta 1, transA 0/);
  });
});
