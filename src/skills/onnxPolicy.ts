/**
 * Trained policies at play time: an ONNX model, read and played by its network in plain
 * TypeScript (policyNetwork.ts), which gives the same bits in every engine, and checked by
 * that same network against its card's probe. No ONNX engine is loaded to play or to check:
 * the page and Node run only the network that plays (onnxruntime stays a test's reference,
 * test/skills/onnxPolicy.test.ts). Play is deterministic: the Gaussian means are the
 * continuous actions, and dash/fire are on when their logit is positive.
 */
import { ACTION_SPEC_VERSION, type Action, OBS_SIZE, OBS_SPEC_VERSION, clampUnit } from '../sim';
import { type ModelCard, POLICY_INPUT, POLICY_OUTPUT, POLICY_OUTPUT_LAYOUT } from './modelCard';
import type { Policy } from './policy';
import { PolicyNetwork, readPolicyNetwork } from './policyNetwork';
import { sha256Hex } from './sha256';

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
 * card's SHA-256 names and a network with the documented input and output, and the network
 * that plays must reproduce the card's probe (outputs the trainer computed when it wrote the
 * model) within the card's tolerance.
 */
export function loadOnnxPolicy(bytes: Uint8Array, card: ModelCard, source: string): Policy {
  checkCard(card, source);
  checkModelDigest(bytes, card, source);
  const network = new PolicyNetwork(readPolicyNetwork(bytes, source, { input: POLICY_INPUT, output: POLICY_OUTPUT }));
  if (network.inputSize !== OBS_SIZE || network.outputSize !== POLICY_OUTPUT_LAYOUT.length) {
    throw new Error(`${source} maps ${network.inputSize} inputs to ${network.outputSize} outputs; expected ${OBS_SIZE} to ${POLICY_OUTPUT_LAYOUT.length}`);
  }
  const { inputs, outputs, tolerance } = card.probe;
  const count = inputs.length;
  const got = network.forward(Float32Array.from(inputs.flat()), count, new Float32Array(count * network.outputSize));
  outputs.flat().forEach((want, i) => {
    if (!(Math.abs(got[i]! - want) <= tolerance)) {
      throw new Error(`${source} does not reproduce its card's probe (output ${i}: ${got[i]} vs ${want}); the file is corrupted or not the model its card describes`);
    }
  });
  return { ...networkPolicy(card.name, network), agentsPerTeam: card.training.agentsPerTeam };
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
