/**
 * The browser tests that play the real local model: the suite runs where chromium and the
 * pulled model are here, or in CI (where it fails if either is missing), and is skipped
 * elsewhere, saying why. Each starts Vite's dev server with the model settings given and
 * one chromium, and stops both after.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { type Browser, CHROMIUM_PATH, type ServerProcess, chromiumAvailable, launchChromium } from '../../src/bench/harness';
import { startDevServer } from './devServer';
import { HAVE_LOCAL_MODEL, IN_CI, requireLocalModel } from './localModel';

/** `describe` where the suite can run (or must: CI), else `describe.skip` with a message naming `what`. */
export function localModelBrowserSuite(what: string): typeof describe | typeof describe.skip {
  const haveChromium = chromiumAvailable();
  if (IN_CI || (haveChromium && HAVE_LOCAL_MODEL)) return describe;
  console.warn(`${what} skipped: ${haveChromium ? 'the local model is not pulled (npm run llm:pull)' : `no chromium at ${CHROMIUM_PATH}`}`);
  return describe.skip;
}

/** The dev server (with `env` as its model settings) and chromium, for the suite it is called in. */
export function useLocalModelBrowser(env: Record<string, string>): { readonly dev: () => ServerProcess; readonly browser: () => Browser } {
  let dev: ServerProcess | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (!chromiumAvailable()) throw new Error(`no chromium at ${CHROMIUM_PATH}: CI must install it (.ci/run does)`);
    requireLocalModel();
    dev = await startDevServer(env);
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await dev?.stop();
  });
  return { dev: () => dev!, browser: () => browser! };
}
