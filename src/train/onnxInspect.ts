/**
 * Decode an ONNX model with onnx-proto and summarise its interface (inputs, outputs, metadata),
 * without running it. Used to check exported policies and to fail early, with a readable message,
 * on files that are not ONNX models at all (protobuf decoding is lenient, so we also sanity-check
 * the decoded structure).
 */
import onnxProto from 'onnx-proto';
import type { onnx as OnnxTypes } from 'onnx-proto';

const { onnx } = onnxProto;

/** A dimension is a fixed size, a symbolic name (e.g. "batch"), or unknown (null). */
export type OnnxDim = number | string | null;

export interface OnnxTensorInfo {
  name: string;
  /** ONNX TensorProto.DataType (1 = FLOAT); null if the value is not a tensor. */
  elemType: number | null;
  /** null when the model declares no shape at all. */
  shape: OnnxDim[] | null;
}

export interface OnnxSummary {
  irVersion: number;
  producerName: string;
  producerVersion: string;
  docString: string;
  /** Opset version per domain ("" is the default ai.onnx domain). */
  opsets: Record<string, number>;
  /** Graph inputs that are not initializers, i.e. what a caller must feed. */
  inputs: OnnxTensorInfo[];
  outputs: OnnxTensorInfo[];
  metadata: Record<string, string>;
  /** Operator types used by the graph, in first-use order. */
  opTypes: string[];
  nodeCount: number;
}

/** protobufjs yields int64 fields as number or Long depending on whether `long` is loadable. */
function toNumber(v: number | { toNumber(): number } | null | undefined): number {
  if (v === null || v === undefined) return 0;
  return typeof v === 'number' ? v : v.toNumber();
}

function tensorInfo(v: OnnxTypes.IValueInfoProto): OnnxTensorInfo {
  const tensor = v.type?.tensorType;
  const dims = tensor?.shape?.dim;
  return {
    name: v.name ?? '',
    elemType: tensor ? (tensor.elemType ?? 0) : null,
    shape: dims
      ? dims.map((d) => (d.dimParam ? d.dimParam : d.dimValue !== null && d.dimValue !== undefined ? toNumber(d.dimValue) : null))
      : null,
  };
}

/**
 * Summarise an ONNX model.
 * @param label used in error messages, typically the file name.
 * @throws Error "<label> is not a valid ONNX model: <reason>" if decoding or the sanity checks fail.
 */
export function inspectOnnx(bytes: Uint8Array, label = 'model.onnx'): OnnxSummary {
  const fail = (reason: string): never => {
    throw new Error(`${label} is not a valid ONNX model: ${reason}`);
  };
  if (bytes.length === 0) fail('file is empty');

  let model: OnnxTypes.ModelProto;
  try {
    model = onnx.ModelProto.decode(bytes);
  } catch (err) {
    return fail(`protobuf decoding failed (${err instanceof Error ? err.message : String(err)})`);
  }

  const irVersion = toNumber(model.irVersion);
  if (irVersion <= 0) fail('missing ir_version');
  if (model.opsetImport.length === 0) fail('no opset_import');
  const graph = model.graph;
  if (!graph) return fail('no graph');
  const nodes = graph.node ?? [];
  const graphInputs = graph.input ?? [];
  const graphOutputs = graph.output ?? [];
  if (nodes.length === 0) fail('graph has no nodes');
  if (graphOutputs.length === 0) fail('graph has no outputs');
  const opTypes: string[] = [];
  for (const n of nodes) {
    if (!n.opType) return fail('a node has no op_type');
    if (!opTypes.includes(n.opType)) opTypes.push(n.opType);
  }

  const initializerNames = new Set((graph.initializer ?? []).map((t) => t.name ?? ''));
  const opsets: Record<string, number> = {};
  for (const o of model.opsetImport) opsets[o.domain ?? ''] = toNumber(o.version);
  const metadata: Record<string, string> = {};
  for (const p of model.metadataProps) metadata[p.key ?? ''] = p.value ?? '';

  return {
    irVersion,
    producerName: model.producerName,
    producerVersion: model.producerVersion,
    docString: model.docString,
    opsets,
    inputs: graphInputs.filter((v) => !initializerNames.has(v.name ?? '')).map(tensorInfo),
    outputs: graphOutputs.map(tensorInfo),
    metadata,
    opTypes,
    nodeCount: nodes.length,
  };
}
