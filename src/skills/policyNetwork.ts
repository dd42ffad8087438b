/**
 * A trained policy's network, run in plain TypeScript so that it gives the same bits in
 * every JavaScript engine: the policies' actions feed back into the world, so a match is
 * only reproducible where they do.
 *
 * Why not onnxruntime at play time: onnxruntime-node (native kernels) and onnxruntime-web
 * (WebAssembly) sum in different orders and approximate tanh differently. Through the
 * shipped combat, navigate and flat models, 1,000 random observations each, the two
 * disagreed on 71-81% of the outputs, by up to 1.5e-5; one such bit in a turn rate changes
 * a match within seconds. Here the arithmetic is IEEE 754 double with a fixed
 * summation order and the deterministic tanh of sim/detMath, rounded to float32 between
 * layers as the ONNX graph is. This network also checks each model against its card's
 * probe (onnxPolicy.ts); onnxruntime is the reference the tests hold it to (1e-5), and no
 * part of the product loads it.
 *
 * Speed: `npm run bench -- --only inference` prints this network beside onnxruntime-node
 * (a dev dependency, as the bench is a developer's tool).
 *
 * The graph it reads is the one train/onnxExport.ts writes (and any exporter may write):
 *   Sub(obs, obs_mean) -> Div(., obs_std) -> Clip(., min, max) -> [Gemm -> Tanh]* -> Gemm
 * Gemm with alpha = beta = 1, transA = 0, and transB 0 or 1; float32 initializers.
 */
import onnxProto from 'onnx-proto';
import type { onnx as OnnxTypes } from 'onnx-proto';
import { det } from '../sim';

// onnx-proto is a CommonJS protobufjs bundle; under Node ESM only its default export exists.
const { onnx } = onnxProto;
const FLOAT = 1; // onnx.TensorProto.DataType.FLOAT

export interface DenseLayer {
  readonly nIn: number;
  readonly nOut: number;
  /** Weights by output: weight[j * nIn + k] multiplies input k into output j. */
  readonly weight: Float64Array;
  readonly bias: Float64Array;
}

export interface PolicyNetworkWeights {
  readonly obsMean: Float32Array;
  readonly obsStd: Float32Array;
  readonly clipMin: number;
  readonly clipMax: number;
  /** Hidden layers (tanh) then the linear output layer. */
  readonly layers: readonly DenseLayer[];
}

/** The names a graph must read and write (the model card's io): checked when given. */
export interface GraphNames {
  readonly input: string;
  readonly output: string;
}

/** Read the weights of a policy graph as documented above; throws naming what differs. */
export function readPolicyNetwork(bytes: Uint8Array, source: string, names?: GraphNames): PolicyNetworkWeights {
  const fail = (why: string): never => {
    throw new Error(`${source} is not a Hillmind policy network: ${why} (expected Sub, Div, Clip, then Gemm and Tanh layers ending in a Gemm)`);
  };
  let model: OnnxTypes.ModelProto;
  try {
    model = onnx.ModelProto.decode(bytes);
  } catch (err) {
    return fail(`protobuf decoding failed (${(err as Error).message})`);
  }
  const graph = model.graph ?? fail('no graph');
  if (names) checkGraphNames(graph, names, source);
  const tensors = new Map<string, Float32Array & { dims?: number[] }>();
  for (const t of graph.initializer ?? []) tensors.set(t.name ?? '', floatTensor(t, source));
  const tensor = (name: string | undefined, what: string) => tensors.get(name ?? '') ?? fail(`${what} '${name}' is not a float initializer`);
  const nodes = graph.node ?? [];
  const op = (i: number, type: string) => {
    const node = nodes[i] ?? fail(`node ${i} is missing, expected ${type}`);
    if (node.opType !== type) fail(`node ${i} is ${node.opType}, expected ${type}`);
    return node;
  };
  const obsMean = tensor(op(0, 'Sub').input?.[1], 'the observation mean');
  const obsStd = tensor(op(1, 'Div').input?.[1], 'the observation scale');
  const clip = op(2, 'Clip');
  const clipMin = tensor(clip.input?.[1], 'the clip minimum')[0] ?? fail('empty clip minimum');
  const clipMax = tensor(clip.input?.[2], 'the clip maximum')[0] ?? fail('empty clip maximum');
  const layers: DenseLayer[] = [];
  let width = obsMean.length;
  for (let i = 3; i < nodes.length; i++) {
    const gemm = op(i, 'Gemm');
    const attrs = new Map((gemm.attribute ?? []).map((a) => [a.name ?? '', a]));
    const alpha = attrs.get('alpha')?.f ?? 1;
    const beta = attrs.get('beta')?.f ?? 1;
    const transA = Number(attrs.get('transA')?.i ?? 0);
    const transB = Number(attrs.get('transB')?.i ?? 0);
    if (alpha !== 1 || beta !== 1 || transA !== 0) fail(`node ${i} is a Gemm with alpha ${alpha}, beta ${beta}, transA ${transA}`);
    const w = tensor(gemm.input?.[1], `node ${i}'s weight`);
    const b = tensor(gemm.input?.[2], `node ${i}'s bias`);
    const nOut = b.length;
    if (w.length !== width * nOut) fail(`node ${i}'s weight has ${w.length} values for ${width} inputs and ${nOut} outputs`);
    layers.push(denseLayer(w, b, width, nOut, transB === 1));
    width = nOut;
    if (i + 1 < nodes.length) op(++i, 'Tanh');
  }
  if (layers.length === 0) fail('no Gemm layer');
  if (obsStd.length !== obsMean.length) fail(`the observation scale has ${obsStd.length} values, the mean ${obsMean.length}`);
  return { obsMean, obsStd, clipMin, clipMax, layers };
}

/** The graph's declared input and output must be the card's, and its nodes must read and write them. */
function checkGraphNames(graph: OnnxTypes.IGraphProto, names: GraphNames, source: string): void {
  const inputs = (graph.input ?? []).map((v) => v.name ?? '');
  const outputs = (graph.output ?? []).map((v) => v.name ?? '');
  const nodes = graph.node ?? [];
  const reads = nodes[0]?.input?.[0];
  const writes = nodes.at(-1)?.output?.[0];
  if (!inputs.includes(names.input) || !outputs.includes(names.output) || reads !== names.input || writes !== names.output) {
    throw new Error(
      `${source} has inputs [${inputs.join(', ')}] and outputs [${outputs.join(', ')}] (its first node reads '${reads}', its last writes '${writes}'); expected input '${names.input}' and output '${names.output}'`,
    );
  }
}

function floatTensor(t: OnnxTypes.ITensorProto, source: string): Float32Array {
  if (t.dataType !== FLOAT) throw new Error(`${source}: initializer '${t.name}' is not float32 (data type ${t.dataType})`);
  if (t.floatData && t.floatData.length > 0) return Float32Array.from(t.floatData);
  const raw = t.rawData ?? new Uint8Array(0);
  if (raw.length % 4 !== 0) throw new Error(`${source}: initializer '${t.name}' has ${raw.length} bytes, not whole float32s`);
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  return Float32Array.from({ length: raw.length / 4 }, (_, i) => view.getFloat32(i * 4, true)); // ONNX stores little-endian
}

function denseLayer(w: Float32Array, b: Float32Array, nIn: number, nOut: number, transposed: boolean): DenseLayer {
  const weight = new Float64Array(nIn * nOut);
  for (let k = 0; k < nIn; k++) {
    for (let j = 0; j < nOut; j++) weight[j * nIn + k] = transposed ? w[j * nIn + k]! : w[k * nOut + j]!;
  }
  return { nIn, nOut, weight, bias: Float64Array.from(b) };
}

/** The forward pass: observations in, the graph's outputs (float32 values) out. */
export class PolicyNetwork {
  readonly inputSize: number;
  readonly outputSize: number;
  private readonly a: Float64Array;
  private readonly b: Float64Array;

  constructor(readonly weights: PolicyNetworkWeights) {
    this.inputSize = weights.obsMean.length;
    this.outputSize = weights.layers.at(-1)!.nOut;
    const widest = Math.max(this.inputSize, ...weights.layers.map((l) => l.nOut));
    this.a = new Float64Array(widest);
    this.b = new Float64Array(widest);
  }

  /** Run `count` observations (rows of inputSize) into `out` (rows of outputSize). */
  forward(obs: Float32Array, count: number, out: Float32Array): Float32Array {
    const { obsMean, obsStd, clipMin, clipMax, layers } = this.weights;
    const fround = Math.fround;
    for (let row = 0; row < count; row++) {
      let x = this.a;
      let y = this.b;
      // Normalise as the graph does: float32 after each of Sub and Div, then Clip.
      for (let k = 0; k < this.inputSize; k++) {
        const z = fround(fround(obs[row * this.inputSize + k]! - obsMean[k]!) / obsStd[k]!);
        x[k] = z < clipMin ? clipMin : z > clipMax ? clipMax : z;
      }
      for (let l = 0; l < layers.length; l++) {
        const { nIn, nOut, weight, bias } = layers[l]!;
        const hidden = l < layers.length - 1;
        for (let j = 0; j < nOut; j++) {
          // Four running sums, added in a fixed order: the same bits everywhere, and about
          // twice the speed of one sum (the additions no longer wait on each other).
          let s0 = 0;
          let s1 = 0;
          let s2 = 0;
          let s3 = 0;
          const w0 = j * nIn;
          let k = 0;
          for (; k + 3 < nIn; k += 4) {
            s0 += x[k]! * weight[w0 + k]!;
            s1 += x[k + 1]! * weight[w0 + k + 1]!;
            s2 += x[k + 2]! * weight[w0 + k + 2]!;
            s3 += x[k + 3]! * weight[w0 + k + 3]!;
          }
          for (; k < nIn; k++) s0 += x[k]! * weight[w0 + k]!;
          const pre = fround(s0 + s1 + (s2 + s3) + bias[j]!);
          y[j] = hidden ? fround(det.tanh(pre)) : pre;
        }
        const t = x;
        x = y;
        y = t;
      }
      for (let j = 0; j < this.outputSize; j++) out[row * this.outputSize + j] = x[j]!;
    }
    return out;
  }
}
