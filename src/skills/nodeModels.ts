/**
 * The Node model source: models/<name>.onnx with its card <name>.json, played by the
 * TypeScript network (onnxPolicy.ts). Node only (the page has its own source over fetch).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type ModelCard, parseModelCard } from './modelCard';
import type { ModelSource } from './modelSource';
import { checkModelDigest, loadOnnxPolicy } from './onnxPolicy';
import { type PolicyNetworkWeights, readPolicyNetwork } from './policyNetwork';

/** Where shipped models live, relative to the working directory. */
export const SHIPPED_MODEL_DIR = 'models';

/** The model folder an environment asks for: HILLMIND_MODELS points elsewhere (tests, experiments). */
export function modelDirFrom(env: Readonly<Record<string, string | undefined>>): string {
  return env.HILLMIND_MODELS?.trim() || SHIPPED_MODEL_DIR;
}

/**
 * Why a model cannot load from `dir`, and what to do, cheapest first: a folder other than
 * the shipped one is HILLMIND_MODELS's choice (unset it to use models/); training is the
 * last resort (the five models retrain in about 78 minutes on 2 cores: docs/benchmarks.md).
 */
export function missingModelMessage(dir: string, name: string, missingPath: string): string {
  const train = `npm run train -- --skill ${name}${resolve(dir) === resolve(SHIPPED_MODEL_DIR) ? '' : ` --out ${dir}`}`;
  if (resolve(dir) === resolve(SHIPPED_MODEL_DIR)) {
    return `${missingPath} is missing from the shipped models in ${SHIPPED_MODEL_DIR}/: restore the folder (git checkout ${SHIPPED_MODEL_DIR}/); as a last resort, train it with ${train}`;
  }
  return (
    `${missingPath} is missing: the model folder is ${dir} (HILLMIND_MODELS chooses it). ` +
    `The shipped models are in ${SHIPPED_MODEL_DIR}/: unset HILLMIND_MODELS to use them. As a last resort, train it with ${train}`
  );
}

/** A model's file (read whole) and its card, from `dir`; a missing one is named with what to do. */
function readModel(dir: string, name: string): { readonly path: string; readonly bytes: Uint8Array; readonly card: ModelCard } {
  const [path, cardPath] = [join(dir, `${name}.onnx`), join(dir, `${name}.json`)];
  for (const file of [path, cardPath]) {
    if (!existsSync(file)) throw new Error(missingModelMessage(dir, name, file));
  }
  const card = parseModelCard(readFileSync(cardPath, 'utf8'), cardPath);
  // A model swapped with its card passes the digest check, and would play the other skill.
  if (card.name !== name) throw new Error(`${cardPath} is the card of model '${card.name}', not '${name}': the model and its card were swapped or renamed; ${name}.onnx and ${name}.json must be the model '${name}'`);
  return { path, card, bytes: new Uint8Array(readFileSync(path)) };
}

export function nodeModelSource(dir: string): ModelSource {
  return {
    where: `${dir}/`,
    async load(name) {
      const { path, bytes, card } = readModel(dir, name);
      return loadOnnxPolicy(bytes, card, path);
    },
    async check(name) {
      const { path, bytes, card } = readModel(dir, name);
      checkModelDigest(bytes, card, path);
    },
    fingerprint(name) {
      const path = join(dir, `${name}.onnx`);
      return existsSync(path) ? modelFingerprint(readFileSync(path)) : null;
    },
  };
}

/** How tournaments name a model file: the first 16 hex digits of its SHA-256. */
export function modelFingerprint(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 16);
}

/**
 * A trained model's network, as weights (training's opponents play them), once its card's
 * digest is checked, with the file's fingerprint, from one read of the file.
 */
export function readTrainedNetwork(dir: string, name: string): { readonly network: PolicyNetworkWeights; readonly fingerprint: string } {
  const { path, bytes, card } = readModel(dir, name);
  checkModelDigest(bytes, card, path);
  return { network: readPolicyNetwork(bytes, path), fingerprint: modelFingerprint(bytes) };
}
