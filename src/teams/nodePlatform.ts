/**
 * The platform of a Node process (a command, the server, a tournament worker thread): its
 * spec, read once from the environment and the command line by the entry point, and the
 * platform built from it: trained models from the spec's folder, the language model it
 * configures, the system clock. The spec is plain data, so a worker thread receives it (and
 * checks it) rather than environment strings. Node only: pages build theirs in
 * src/web/platform.ts.
 */
import { z } from 'zod';
import { type Env, type LlmFlags, llmSpecSchema, parseLlmSpec, withLlmFlags } from '../llm';
import { nodeLlmAccess } from '../llm/node';
import { ModelLibrary } from '../skills';
import { modelDirFrom, nodeModelSource } from '../skills/nodeModels';
import { type Platform, createPlatform } from './platform';

/** What a Node platform is built from. */
export const platformSpecSchema = z.object({
  /** The trained models' folder (HILLMIND_MODELS; default models/). */
  models: z.string().min(1),
  /** The language model: where it runs and how the strategist asks. */
  llm: llmSpecSchema,
});

export type PlatformSpec = z.infer<typeof platformSpecSchema>;

/** Read the spec from an environment (the entry point passes process.env) and the command line's flags. */
export function readPlatformSpec(env: Env, flags: { readonly llm?: LlmFlags } = {}): PlatformSpec {
  const llm = parseLlmSpec(env);
  return { models: modelDirFrom(env), llm: flags.llm ? withLlmFlags(llm, flags.llm) : llm };
}

/** A spec received from elsewhere (a worker thread's data), checked whole; the error names what is wrong. */
export function parsePlatformSpec(value: unknown): PlatformSpec {
  const parsed = platformSpecSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  throw new Error(`not a platform spec: ${issues}`);
}

/** A platform, with the spec it was built from (for the worker threads it starts). */
export interface NodePlatform extends Platform {
  readonly spec: PlatformSpec;
}

export interface NodePlatformOptions {
  /** A channel where this process's local engine answers (a tournament's worker threads use the coordinator's). */
  readonly engineChannel?: string;
}

export function nodePlatform(spec: PlatformSpec, options: NodePlatformOptions = {}): NodePlatform {
  const platform = createPlatform({
    models: new ModelLibrary(nodeModelSource(spec.models)),
    llm: nodeLlmAccess({ spec: spec.llm, ...(options.engineChannel ? { engineChannel: options.engineChannel } : {}) }),
  });
  return { ...platform, spec };
}
