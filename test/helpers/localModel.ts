/**
 * The real local model for the tests that need it (pulled by `npm run llm:pull`, as .ci/run
 * does). In CI (CI=true) those tests run whatever happens and fail where the model is
 * missing; elsewhere they are skipped, saying why.
 */
import { describe } from 'vitest';
import { DEFAULT_LOCAL_MODEL, LOCAL_MODELS, engineFile, localModelDir, engineModelPath } from '../../src/llm/localModels';
import type { LlamaChatClient } from '../../src/llm/node/llamaClient';
import { isVerified } from '../../src/llm/node/pull';

export const LOCAL_SPEC = LOCAL_MODELS[DEFAULT_LOCAL_MODEL]!;
/** The file the engine runs (the pulled one, or the one derived from it). */
export const LOCAL_ENGINE_FILE = engineFile(LOCAL_SPEC);
export const LOCAL_MODEL_PATH = engineModelPath(LOCAL_SPEC, localModelDir(process.env));
export const IN_CI = /^(1|true)$/i.test(process.env.CI ?? '');
export const HAVE_LOCAL_MODEL = isVerified(LOCAL_ENGINE_FILE, LOCAL_MODEL_PATH);

/** `describe` where the model is here or in CI, else `describe.skip` with a message. */
export function describeWithLocalModel(what: string): typeof describe | typeof describe.skip {
  if (HAVE_LOCAL_MODEL || IN_CI) return describe;
  console.warn(`${what}: skipped, the local model is not pulled (${LOCAL_MODEL_PATH}): run npm run llm:pull`);
  return describe.skip;
}

/** Fails (in CI) where the model is missing: call it in beforeAll. */
export function requireLocalModel(): void {
  if (!HAVE_LOCAL_MODEL) throw new Error(`the local model is not pulled (${LOCAL_MODEL_PATH}): CI must run npm run llm:pull (.ci/run does)`);
}

/**
 * The number probabilities `client` reads from now on (its scored answers' reads, each agent's
 * in order): take() hands over those read since the last take.
 */
export function watchNumberReads(client: LlamaChatClient): { take(): number[][] } {
  const scoring = client as unknown as { numberProbabilities: (...args: unknown[]) => Promise<number[]> };
  const numberProbabilities = scoring.numberProbabilities.bind(client);
  let reads: number[][] = [];
  scoring.numberProbabilities = async (...args) => {
    const probabilities = await numberProbabilities(...args);
    reads.push(probabilities);
    return probabilities;
  };
  return {
    take() {
      const taken = reads;
      reads = [];
      return taken;
    },
  };
}
