/**
 * The browser tests' stage for a page that asks a language model: a stand-in model server,
 * Vite's dev server pointed at it (OPENAI_BASE_URL), and headless chromium. One place, so
 * every such test starts and stops the three the same way.
 */
import { type Browser, CHROMIUM_PATH, chromiumAvailable, launchChromium, type ServerProcess } from '../../src/bench/harness';
import { FakeOpenAiServer, type FakeServerOptions } from '../llm/fakeOpenAiServer';
import { startDevServer } from './devServer';

export interface PageWithModel {
  readonly fake: FakeOpenAiServer;
  readonly dev: ServerProcess;
  readonly browser: Browser;
}

/** Start the three; `env` is the dev server's model settings beside OPENAI_BASE_URL. */
export async function startPageWithModel(model: FakeServerOptions, env: Record<string, string>): Promise<PageWithModel> {
  if (!chromiumAvailable()) throw new Error(`no chromium at ${CHROMIUM_PATH}: CI must install it (.ci/run does)`);
  const fake = await FakeOpenAiServer.start(model);
  const dev = await startDevServer({ OPENAI_BASE_URL: fake.url, ...env });
  const browser = await launchChromium();
  return { fake, dev, browser };
}

/** Stop what was started, the browser first; any of them may be missing after a failed start. */
export async function stopPageWithModel(stage: {
  readonly fake?: { close(): Promise<void> };
  readonly dev?: { stop(): Promise<void> };
  readonly browser?: { close(): Promise<void> };
}): Promise<void> {
  await stage.browser?.close();
  await stage.dev?.stop();
  await stage.fake?.close();
}
