/**
 * The page's platform: trained models fetched from the server's models/ and played by
 * the TypeScript network (web/models.ts), the language model through the server's proxy (/api/llm, live timing),
 * the browser's clock, a person at the keyboard, and a planner that plans in slices between
 * frames. Built once by each page's entry.
 */
import { proxyLlmAccess } from '../llm';
import { ModelLibrary } from '../skills';
import { type Platform, createPlatform } from '../teams';
import { webModelSource } from './models';

/** The planner's work between two pauses: half a 60 Hz frame, so the page keeps drawing while it plans. */
const PLANNING_SLICE_MS = 8;

export function webPlatform(modelBase = 'models/'): Platform {
  return createPlatform({ models: new ModelLibrary(webModelSource(modelBase)), llm: proxyLlmAccess(), person: true, planningSliceMs: PLANNING_SLICE_MS });
}
