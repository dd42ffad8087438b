/**
 * Export a trained MLP policy as an ONNX model that onnxruntime (node or web) can run.
 *
 * Contract of the exported graph (opset 13, IR version 7):
 *   input  "obs"         float32 [batch, obsDim]
 *   output "action_mean" float32 [batch, nOut]   raw network output (no squashing)
 * where "batch" is a symbolic (dynamic) dimension. Inside the graph:
 *   obs_norm = Clip((obs - obs_mean) / obs_std, -clip, clip),  obs_std = sqrt(obsVar + epsilon)
 *   h_1 = tanh(Gemm(obs_norm, W_0, b_0)), ..., action_mean = Gemm(h_{L-1}, W_{L-1}, b_{L-1})
 * obs_std is computed once here (in float32) and stored as an initializer, so `normalizeObservation`
 * below reproduces the graph's normalisation bit for bit.
 */
import onnxProto from 'onnx-proto';
import type { onnx as OnnxTypes } from 'onnx-proto';
import { mlpLayout, type MlpWeights } from './mlp';

// onnx-proto is a CommonJS protobufjs bundle; under Node ESM only its default export exists.
const { onnx } = onnxProto;

export const ONNX_OPSET = 13;
/** IR version that goes with opset 13 (ONNX 1.8). */
export const ONNX_IR_VERSION = 7;
export const OBS_INPUT_NAME = 'obs';
export const ACTION_MEAN_OUTPUT_NAME = 'action_mean';
export const BATCH_DIM_NAME = 'batch';
const FLOAT = 1; // onnx.TensorProto.DataType.FLOAT

/** Observation normalisation baked into the model (running mean/var from training). */
export interface ObsNormalization {
  obsMean: Float32Array;
  obsVar: Float32Array;
  /** Normalised observations are clipped to [-clip, clip]. */
  clip: number;
  /** Added to the variance before the square root. */
  epsilon: number;
}

export interface PolicyExportOptions extends ObsNormalization {
  mlp: MlpWeights;
  docString?: string;
  /** Stored as model.metadata_props (readable from ORT's session metadata and onnxInspect). */
  metadata?: Record<string, string>;
}

/**
 * Per-dimension divisor sqrt(var + eps), rounded to float32 exactly as stored in the model.
 * Separate so the exporter and `normalizeObservation` cannot disagree.
 */
function obsStd(obsVar: number, epsilon: number): number {
  return Math.fround(Math.sqrt(Math.fround(obsVar + epsilon)));
}

/**
 * Normalise `batch` rows of observations the same way the exported graph does:
 * clip((obs - mean) / sqrt(var + eps), -clip, clip), each step rounded to float32.
 * `obs.length` must be a multiple of `obsMean.length`. Writes into `out` if given (no allocation).
 */
export function normalizeObservation(
  obs: Float32Array,
  norm: ObsNormalization,
  out: Float32Array = new Float32Array(obs.length),
): Float32Array {
  const { obsMean, obsVar, clip, epsilon } = norm;
  const dim = obsMean.length;
  if (obs.length % dim !== 0) throw new Error(`normalizeObservation: ${obs.length} floats is not a multiple of obsDim ${dim}`);
  if (out.length < obs.length) throw new Error(`normalizeObservation: out has ${out.length} floats, need ${obs.length}`);
  const batch = obs.length / dim;
  const lo = Math.fround(-clip);
  const hi = Math.fround(clip);
  for (let d = 0; d < dim; d++) {
    const mean = obsMean[d]!;
    const std = obsStd(obsVar[d]!, epsilon);
    for (let i = 0; i < batch; i++) {
      const idx = i * dim + d;
      const z = Math.fround(Math.fround(obs[idx]! - mean) / std);
      out[idx] = z < lo ? lo : z > hi ? hi : z;
    }
  }
  return out;
}

/**
 * Reference forward pass (normalise + MLP) in plain JS with the graph's semantics: float32 tensors
 * between nodes, Gemm as x·W + b, tanh on hidden layers. Used by parity tests against onnxruntime;
 * agreement is to float32 rounding (ORT sums in a different order), not bit-exact after the Gemms.
 */
export function referenceForward(opts: PolicyExportOptions, obs: Float32Array, batch: number): Float32Array {
  const { sizes, params } = opts.mlp;
  const { layers } = mlpLayout(sizes);
  if (obs.length !== batch * sizes[0]!) throw new Error(`referenceForward: expected ${batch} x ${sizes[0]} floats, got ${obs.length}`);
  let x = normalizeObservation(obs, opts);
  layers.forEach((L, l) => {
    const y = new Float32Array(batch * L.nOut);
    for (let i = 0; i < batch; i++) {
      for (let j = 0; j < L.nOut; j++) {
        let s = 0;
        for (let k = 0; k < L.nIn; k++) s += x[i * L.nIn + k]! * params[L.wOffset + k * L.nOut + j]!;
        s += params[L.bOffset + j]!;
        y[i * L.nOut + j] = l < layers.length - 1 ? Math.tanh(Math.fround(s)) : s;
      }
    }
    x = y;
  });
  return x;
}

/** float32 values as little-endian bytes, independent of the host's byte order. */
function float32LE(values: ArrayLike<number>): Uint8Array {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < values.length; i++) view.setFloat32(i * 4, values[i]!, true);
  return bytes;
}

function floatInitializer(name: string, dims: number[], values: ArrayLike<number>): OnnxTypes.ITensorProto {
  return { name, dims, dataType: FLOAT, rawData: float32LE(values) };
}

function floatValueInfo(name: string, dims: (number | string)[]): OnnxTypes.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType: FLOAT,
        shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) },
      },
    },
  };
}

function node(opType: string, inputs: string[], outputs: string[], name: string): OnnxTypes.INodeProto {
  return { opType, input: inputs, output: outputs, name };
}

/** Build the ONNX model described at the top of this file and return its protobuf bytes. */
export function exportPolicyOnnx(opts: PolicyExportOptions): Uint8Array {
  const { mlp, obsMean, obsVar, clip, epsilon } = opts;
  const { sizes, params } = mlp;
  const { layers, paramCount } = mlpLayout(sizes);
  const obsDim = sizes[0]!;
  const nOut = sizes[sizes.length - 1]!;
  if (params.length !== paramCount) throw new Error(`exportPolicyOnnx: sizes [${sizes.join(', ')}] need ${paramCount} params, got ${params.length}`);
  if (obsMean.length !== obsDim || obsVar.length !== obsDim) {
    throw new Error(`exportPolicyOnnx: obsMean/obsVar must have ${obsDim} entries, got ${obsMean.length}/${obsVar.length}`);
  }
  if (!(clip > 0)) throw new Error(`exportPolicyOnnx: clip must be > 0, got ${clip}`);
  const std = Array.from(obsVar, (v) => obsStd(v, epsilon));
  if (!std.every((s) => s > 0 && Number.isFinite(s))) throw new Error('exportPolicyOnnx: obsVar + epsilon must be positive and finite');

  const initializer: OnnxTypes.ITensorProto[] = [
    floatInitializer('obs_mean', [obsDim], obsMean),
    floatInitializer('obs_std', [obsDim], std),
    floatInitializer('obs_clip_min', [], [-clip]), // Clip-13 takes scalar min/max as inputs
    floatInitializer('obs_clip_max', [], [clip]),
  ];
  const nodes: OnnxTypes.INodeProto[] = [
    node('Sub', [OBS_INPUT_NAME, 'obs_mean'], ['obs_centered'], 'obs_sub_mean'),
    node('Div', ['obs_centered', 'obs_std'], ['obs_scaled'], 'obs_div_std'),
    node('Clip', ['obs_scaled', 'obs_clip_min', 'obs_clip_max'], ['obs_norm'], 'obs_clip'),
  ];

  let x = 'obs_norm';
  layers.forEach((L, l) => {
    const last = l === layers.length - 1;
    const w = `layer${l}.weight`;
    const b = `layer${l}.bias`;
    initializer.push(floatInitializer(w, [L.nIn, L.nOut], params.subarray(L.wOffset, L.wOffset + L.nIn * L.nOut)));
    initializer.push(floatInitializer(b, [L.nOut], params.subarray(L.bOffset, L.bOffset + L.nOut)));
    const pre = last ? ACTION_MEAN_OUTPUT_NAME : `layer${l}.pre`;
    nodes.push(node('Gemm', [x, w, b], [pre], `layer${l}.gemm`)); // alpha=beta=1, no transposes
    if (!last) {
      nodes.push(node('Tanh', [pre], [`layer${l}.act`], `layer${l}.tanh`));
      x = `layer${l}.act`;
    }
  });

  const model = onnx.ModelProto.create({
    irVersion: ONNX_IR_VERSION,
    opsetImport: [{ domain: '', version: ONNX_OPSET }],
    producerName: 'hillmind',
    docString: opts.docString ?? '',
    metadataProps: Object.entries(opts.metadata ?? {}).map(([key, value]) => ({ key, value })),
    graph: {
      name: 'hillmind_policy',
      node: nodes,
      initializer,
      input: [floatValueInfo(OBS_INPUT_NAME, [BATCH_DIM_NAME, obsDim])],
      output: [floatValueInfo(ACTION_MEAN_OUTPUT_NAME, [BATCH_DIM_NAME, nOut])],
    },
  });
  // Under Node protobufjs hands back a (possibly pooled) Buffer; copy to a plain, exact-size Uint8Array.
  return new Uint8Array(onnx.ModelProto.encode(model).finish());
}
