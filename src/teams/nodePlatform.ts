/**
 * The platform of a Node process (a command, the server, a tournament worker): trained
 * models from the folder its environment names, the language model its environment
 * configures, the system clock. Node only: pages build theirs in src/web/platform.ts.
 */
import { type LlmOverrides, nodeLlmAccess } from '../llm/node';
import type { Env } from '../llm';
import { ModelLibrary } from '../skills';
import { modelDirFrom, nodeModelSource } from '../skills/nodeModels';
import { type Platform, createPlatform } from './platform';

export interface NodePlatformOptions {
  /** The environment to read (HILLMIND_MODELS, OPENAI_BASE_URL, LLM_*): the entry point passes process.env. */
  readonly env: Env;
  /** What the command line sets over the environment (--llm-timing, --llm-cache). */
  readonly llm?: LlmOverrides;
  /** A channel where this process's local engine answers (a tournament's worker threads use the coordinator's). */
  readonly engineChannel?: string;
}

export function nodePlatform(options: NodePlatformOptions): Platform {
  return createPlatform({
    models: new ModelLibrary(nodeModelSource(modelDirFrom(options.env))),
    llm: nodeLlmAccess({ env: options.env, ...(options.llm ? { overrides: options.llm } : {}), ...(options.engineChannel ? { engineChannel: options.engineChannel } : {}) }),
  });
}
