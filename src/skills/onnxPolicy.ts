/**
 * Trained policies at play time: an ONNX model, checked by onnxruntime (onnxruntime-node
 * headless, onnxruntime-web in the browser; both have this API) and played by its network
 * in plain TypeScript (policyNetwork.ts), which gives the same bits in every engine. Play is
 * deterministic: the Gaussian means are the continuous actions, and dash/fire are on when
 * their logit is positive.
 */
import { ACTION_SPEC_VERSION, type Action, OBS_SIZE, OBS_SPEC_VERSION, clampUnit } from '../sim';
import { type ModelCard, POLICY_INPUT, POLICY_OUTPUT, POLICY_OUTPUT_LAYOUT } from './modelCard';
import type { Policy } from './policy';
import { PolicyNetwork, readPolicyNetwork } from './policyNetwork';
import { sha256Hex } from './sha256';

/** The part of onnxruntime's API we use (identical in onnxruntime-node and onnxruntime-web). */
export interface OrtTensor {
  readonly data: unknown;
  readonly dims: readonly number[];
}
export interface OrtSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Record<string, OrtTensor>): Promise<Record<string, OrtTensor>>;
  /** Free the session's native memory (onnxruntime keeps it until released). */
  release(): Promise<void>;
}
export interface OrtModule {
  InferenceSession: { create(model: Uint8Array, options?: Record<string, unknown>): Promise<OrtSession> };
  Tensor: new (type: 'float32', data: Float32Array, dims: readonly number[]) => OrtTensor;
}

/** Check a card against this build's observation and action specs. */
export function checkCard(card: ModelCard, source: string): void {
  const problems: string[] = [];
  if (card.obsSpecVersion !== OBS_SPEC_VERSION) problems.push(`observation spec v${card.obsSpecVersion}, this build uses v${OBS_SPEC_VERSION}`);
  if (card.actionSpecVersion !== ACTION_SPEC_VERSION) problems.push(`action spec v${card.actionSpecVersion}, this build uses v${ACTION_SPEC_VERSION}`);
  if (card.io.input !== POLICY_INPUT || card.io.inputShape[1] !== OBS_SIZE) {
    problems.push(`input ${card.io.input}[${card.io.inputShape.join(', ')}], expected ${POLICY_INPUT}[batch, ${OBS_SIZE}]`);
  }
  if (card.io.output !== POLICY_OUTPUT || card.io.outputShape[1] !== POLICY_OUTPUT_LAYOUT.length) {
    problems.push(`output ${card.io.output}[${card.io.outputShape.join(', ')}], expected ${POLICY_OUTPUT}[batch, ${POLICY_OUTPUT_LAYOUT.length}]`);
  }
  if (problems.length) throw new Error(`${source} does not fit this build: ${problems.join('; ')}. Retrain it (${card.training.reproduce}).`);
}

/** Turn model outputs (means and logits) into actions. */
export function outputsToActions(out: Float32Array, count: number, actions: readonly Action[]): void {
  const width = POLICY_OUTPUT_LAYOUT.length;
  for (let i = 0; i < count; i++) {
    const o = i * width;
    const a = actions[i]!;
    a.move = clampUnit(out[o]!);
    a.turn = clampUnit(out[o + 1]!);
    a.strafe = clampUnit(out[o + 2]!);
    a.dash = out[o + 3]! > 0 ? 1 : 0;
    a.fire = out[o + 4]! > 0 ? 1 : 0;
  }
}

/** Throw unless `bytes` are the file the card describes, to the bit. */
export function checkModelDigest(bytes: Uint8Array, card: ModelCard, source: string): void {
  const digest = sha256Hex(bytes);
  if (digest !== card.sha256) {
    throw new Error(`${source} is not the model its card describes: its SHA-256 is ${digest}, the card says ${card.sha256}; the file is corrupted or was replaced (retrain it: ${card.training.reproduce})`);
  }
}

/**
 * Load a model with its card: the card must fit this build, the file must be the one the
 * card's SHA-256 names and a model with the documented input and output, and the card's
 * probe must reproduce, both in onnxruntime and in the network that plays.
 */
export async function loadOnnxPolicy(
  ort: OrtModule,
  bytes: Uint8Array,
  card: ModelCard,
  source: string,
  sessionOptions: Record<string, unknown> = {},
): Promise<Policy> {
  checkCard(card, source);
  checkModelDigest(bytes, card, source);
  let session: OrtSession;
  try {
    session = await ort.InferenceSession.create(bytes, sessionOptions);
  } catch (err) {
    throw new Error(`${source} is not a valid ONNX model: ${(err as Error).message}`);
  }
  // The session checks the probe and plays nothing: it is released whatever the check finds.
  try {
    const network = await checkSession(ort, session, bytes, card, source);
    return { ...networkPolicy(card.name, network), agentsPerTeam: card.training.agentsPerTeam };
  } finally {
    await session.release();
  }
}

/** The session's inputs and outputs and the card's probe, in onnxruntime and in the network that plays; gives that network. */
async function checkSession(ort: OrtModule, session: OrtSession, bytes: Uint8Array, card: ModelCard, source: string): Promise<PolicyNetwork> {
  if (!session.inputNames.includes(POLICY_INPUT) || !session.outputNames.includes(POLICY_OUTPUT)) {
    throw new Error(
      `${source} has inputs [${session.inputNames.join(', ')}] and outputs [${session.outputNames.join(', ')}]; expected input '${POLICY_INPUT}' and output '${POLICY_OUTPUT}'`,
    );
  }
  const probe = card.probe;
  const probeIn = Float32Array.from(probe.inputs.flat());
  const count = probe.inputs.length;
  const runtimeOut = (await session.run({ [POLICY_INPUT]: new ort.Tensor('float32', probeIn, [count, OBS_SIZE]) }))[POLICY_OUTPUT]!.data as Float32Array;
  checkProbe(runtimeOut, probe.outputs.flat(), probe.tolerance, source, 'its card\'s probe');
  const network = new PolicyNetwork(readPolicyNetwork(bytes, source));
  const networkOut = network.forward(probeIn, count, new Float32Array(count * POLICY_OUTPUT_LAYOUT.length));
  checkProbe(networkOut, Array.from(runtimeOut), probe.tolerance, source, 'onnxruntime on its card\'s probe (the network that plays)');
  return network;
}

function checkProbe(got: Float32Array, expected: readonly number[], tolerance: number, source: string, what: string): void {
  expected.forEach((want, i) => {
    if (!(Math.abs(got[i]! - want) <= tolerance)) {
      throw new Error(`${source} does not reproduce ${what} (output ${i}: ${got[i]} vs ${want}); the file is corrupted or not the model its card describes`);
    }
  });
}

/** A policy that plays a network: synchronous, so a match never waits on it. */
export function networkPolicy(name: string, network: PolicyNetwork): Policy {
  let out = new Float32Array(0);
  return {
    name,
    kind: 'onnx',
    act(obs, count, actions) {
      const size = count * network.outputSize;
      if (out.length < size) out = new Float32Array(size);
      outputsToActions(network.forward(obs, count, out), count, actions);
    },
  };
}
