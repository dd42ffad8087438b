/**
 * The platform of a command: its spec read once from this process's environment and the
 * command line's flags (the only place below which nothing reads process.env), and the
 * platform built from it, closed when the command is done with it.
 */
import { CACHE_MODES, type LlmFlags, TIMING_HELP, type TimingMode, isCacheMode, parseHeadlessTiming } from '../llm';
import { type NodePlatform, type PlatformSpec, nodePlatform, readPlatformSpec } from '../teams/nodePlatform';
import { usingPlatform } from '../teams';
import { UsageError } from './args';

/** This process's platform spec, with the command line's language-model flags over the environment. */
export function commandPlatformSpec(llm: LlmFlags = {}): PlatformSpec {
  return readPlatformSpec(process.env, { llm });
}

/** Build a platform from `spec`, hand it to `use`, and close it (its local engine freed) whatever `use` does. */
export function withPlatform<T>(spec: PlatformSpec, use: (platform: NodePlatform) => Promise<T>): Promise<T> {
  return usingPlatform(nodePlatform(spec), use);
}

/** --llm-timing and --llm-cache as flags over the environment, or a UsageError naming what was typed. */
export function llmFlagsOf(values: { readonly 'llm-timing'?: string | undefined; readonly 'llm-cache'?: string | undefined }, defaultTiming?: TimingMode): LlmFlags {
  const text = values['llm-timing'];
  const timing = text === undefined ? defaultTiming : parseHeadlessTiming(text);
  if (timing === null) throw new UsageError(`--llm-timing must be ${TIMING_HELP}, got '${text}'`);
  const cache = values['llm-cache'];
  if (cache !== undefined && !isCacheMode(cache)) throw new UsageError(`--llm-cache must be one of ${CACHE_MODES.join(', ')}, got '${cache}'`);
  return { ...(timing ? { timing } : {}), ...(cache ? { cache } : {}) };
}
