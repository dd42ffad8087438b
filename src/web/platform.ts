/**
 * The page's platform: trained models fetched from the server's models/ and played by
 * the TypeScript network (web/models.ts), the language model where the page's setting says
 * (the server's, through its proxy at /api/llm; or run in the page itself, on the files the
 * server lends: src/llm/pageAccess.ts), live timing, the browser's clock, a person at the
 * keyboard, and a planner that plans in slices between frames. Built once by each page's entry.
 */
import wllamaWasmUrl from '@wllama/wllama/esm/wasm/wllama.wasm?url';
import { DEFAULT_LLM_RUNS, type LlmAccess, type LlmRuns, deferredLlmAccess, pageLlmAccess } from '../llm';
import { ModelLibrary } from '../skills';
import { type Platform, createPlatform } from '../teams';
import { webModelSource } from './models';

/** The planner's work between two pauses: half a 60 Hz frame, so the page keeps drawing while it plans. */
const PLANNING_SLICE_MS = 8;

/** Where the page's language model runs, and on how many threads where it runs in the page. */
export interface PageLlmSetting {
  readonly runs: LlmRuns;
  /** Default: half the cores, at most 4, where the page is cross-origin isolated; else 1. */
  readonly threads?: number;
}

/** llama.cpp threads in the page by default: more than one needs cross-origin isolation. */
function defaultThreads(): number {
  return globalThis.crossOriginIsolated ? Math.max(1, Math.min(4, Math.floor((navigator.hardwareConcurrency || 2) / 2))) : 1;
}

function llmAccess(setting: PageLlmSetting): LlmAccess {
  return pageLlmAccess({ runs: setting.runs, wasmUrl: wllamaWasmUrl, threads: setting.threads ?? defaultThreads() });
}

/** The page's platform; `llm` may come later (a study page learns it from its study). */
export function webPlatform(modelBase = 'models/', llm: PageLlmSetting | Promise<PageLlmSetting> = { runs: DEFAULT_LLM_RUNS }): Platform {
  const access = llm instanceof Promise ? deferredLlmAccess(llm.then(llmAccess)) : llmAccess(llm);
  return createPlatform({ models: new ModelLibrary(webModelSource(modelBase)), llm: access, person: true, planningSliceMs: PLANNING_SLICE_MS });
}
