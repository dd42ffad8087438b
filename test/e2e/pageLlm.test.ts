/**
 * The llm team with its model run by the page itself (?llm=browser), in real chromium: the
 * page fetches the pulled model and the shipped adapter the server lends (/api/llm/files),
 * checks their digests, runs llama.cpp in WebAssembly on one thread, and decides with no
 * request to the server's model (POST /api/llm). A listing whose digest the file does not
 * match is refused, and the page says so. Prints the download, the load and a decision's
 * p50 in the page (never asserted: timings depend on the machine). In CI (CI=true) this
 * fails where chromium or the model is missing; elsewhere it is skipped, saying why.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { collectPageProblems, waitForHook } from '../../src/bench/harness';
import { type ChatRequest, buildRequest, llmFilesSchema, parseExamSet } from '../../src/llm';
import { nodeLlmAccess } from '../../src/llm/node';
import { parseLlmSpec } from '../../src/llm/settings';
import { localModelBrowserSuite, useLocalModelBrowser } from '../helpers/localModelBrowser';

/** Decisions the page makes before the figures are read: the first (cold prompt) and a few more. */
const DECISIONS = 3;

/** Exam situations both engines answer (the first 20 gave 19 alike: one second agent's number differed). */
const PARITY_ITEMS = 8;

/** The page's address: llm (its model in the page, one llama.cpp thread) against the tree, at half speed (a match holds more decisions). */
const PAGE = '/?renderer=canvas&intro=0&blue=llm&red=bt&seed=3&speed=0.5&autostart=1&llm=browser&llmthreads=1';

/** The requests a page makes to the server's model and to the lent files. */
function countRequests(page: Page): { chat: number; files: string[]; bytes: number } {
  const seen = { chat: 0, files: [] as string[], bytes: 0 };
  page.on('request', (req) => {
    const path = new URL(req.url()).pathname;
    if (path === '/api/llm' && req.method() === 'POST') seen.chat++;
    if (path.startsWith('/api/llm/files/')) seen.files.push(path);
  });
  page.on('requestfinished', async (req) => {
    if (new URL(req.url()).pathname.startsWith('/api/llm/files/')) seen.bytes += (await req.sizes()).responseBodySize;
  });
  return seen;
}

localModelBrowserSuite('in-page model browser test')('the llm team with its model in the page', () => {
  // The server's own engine on one thread (the page's is the other); a generous timeout for the page's first decisions.
  const { dev, browser } = useLocalModelBrowser({ LLM_THREADS: '1', LLM_TIMEOUT_MS: '90000' });
  const problems: string[] = [];

  it('refuses a file whose digest is not the listing\'s, and says so on the page', async () => {
    const page = await browser().context.newPage();
    const seen = countRequests(page);
    // The listing as a tampered server (or a man in the middle) would send it: the model's digest changed.
    await page.route('**/api/llm/files', async (route) => {
      const listing = llmFilesSchema.parse(await (await route.fetch()).json());
      const files = listing.files.map((f) => (f.role === 'model' ? { ...f, sha256: '0'.repeat(64) } : f));
      await route.fulfill({ json: { files } });
    });
    await page.goto(`${dev().url}${PAGE}`);
    await waitForHook(page, 60_000);
    await page.waitForSelector('#error:not([hidden])', { timeout: 120_000 });
    const shown = await page.locator('#error-text').innerText();
    expect(shown).toMatch(/the model file gemma-3-270m-q4_k_m-strategist\.gguf is not the one the server lists: its SHA-256 is 4167424a[0-9a-f]{56}, the listing says 0{64}; it was not loaded/);
    // Refused before it loaded: nothing was asked of any model.
    expect(seen.chat).toBe(0);
    await page.close();
  }, 180_000);

  it('decides with the model in the page, with no request to the server\'s model', async () => {
    const page = await browser().context.newPage();
    collectPageProblems(page, problems);
    const seen = countRequests(page);
    const opened = Date.now();
    await page.goto(`${dev().url}${PAGE}`);
    await waitForHook(page, 60_000);
    await page.waitForFunction(() => window.__hillmind!.state().mode === 'live', undefined, { timeout: 240_000 });
    const liveMs = Date.now() - opened;

    // Each answer's time as the panel gives it, read as the answers come.
    const latencies = await page.evaluate(async (wanted) => {
      const seenAnswers = new Map<number, number>();
      const line = () => document.querySelector('#strategist-blue .strat-model')?.textContent ?? '';
      while (seenAnswers.size < wanted) {
        const text = line();
        const answered = Number(/(\d+) answered/.exec(text)?.[1] ?? 0);
        const took = /last answer took (\d+) ms/.exec(text);
        if (took && answered > 0 && !seenAnswers.has(answered)) seenAnswers.set(answered, Number(took[1]));
        if (/failed|timed out/.test(text)) throw new Error(`the page's model failed: ${text}`);
        if (window.__hillmind!.state().done) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      return [...seenAnswers.values()];
    }, DECISIONS);
    const tookMs = Date.now() - opened;

    expect(latencies.length).toBeGreaterThanOrEqual(2);
    // Decisions of the language model show in the panel; none went to the server's model.
    expect(await page.locator('#strategist-blue').innerText()).toMatch(/by language model at \d+:\d\d\.\d/);
    expect(seen.chat).toBe(0);
    expect(seen.files.sort()).toEqual(['/api/llm/files/gemma-3-270m-q4_k_m-strategist.gguf', '/api/llm/files/strategist-gemma3-270m.gguf']);

    const sorted = [...latencies].sort((a, b) => a - b);
    const p50 = sorted[Math.floor((sorted.length - 1) / 2)]!;
    console.log(
      `in-page model (1 wasm thread): downloaded ${(seen.bytes / 1e6).toFixed(1)} MB; model fetched, checked, loaded and warmed (page open to live) in ${(liveMs / 1000).toFixed(1)} s; ${latencies.length} decisions by ${(tookMs / 1000).toFixed(1)} s; ` +
        `decision latencies ${latencies.join(', ')} ms, p50 ${p50} ms`,
    );
    await page.close();
    expect(problems).toEqual([]);
  }, 420_000);

  it("answers exam situations as the server's engine does, on the same files", async () => {
    const exam = parseExamSet(readFileSync('models/strategist-exam.v1.json', 'utf8'), 'exam');
    const requests: ChatRequest[] = exam.items.slice(0, PARITY_ITEMS).map((item) => buildRequest(item.situation, item.current, { format: 'terse', temperature: 0.1 }));
    // The server's engine (the shipped adapter, one thread), closed before the page's starts.
    const access = nodeLlmAccess({ spec: parseLlmSpec({ LLM_CACHE: 'off', LLM_SEQUENCES: '1', LLM_THREADS: '1' }) });
    const server: string[] = [];
    try {
      const { client } = await access.connect();
      for (const request of requests) server.push((await client.complete(request, new AbortController().signal)).text);
    } finally {
      await access.close();
    }

    const page = await browser().context.newPage();
    collectPageProblems(page, problems);
    await page.goto(`${dev().url}/?intro=0`);
    await waitForHook(page, 60_000);
    // Text, not a function: vitest would rewrite a function's import() for Node.
    const inPage = (await page.evaluate(`(async (asked) => {
      const llm = await import('/src/llm/index.ts');
      const wasmUrl = (await import('/node_modules/@wllama/wllama/esm/wasm/wllama.wasm?url')).default;
      const client = await llm.openPageModel({ model: 'page', wasmUrl, threads: 1 });
      const answers = [];
      for (const request of asked) answers.push((await client.complete(request, new AbortController().signal)).text);
      await client.close();
      return answers;
    })(${JSON.stringify(requests)})`)) as string[];
    await page.close();

    const same = inPage.filter((answer, i) => answer === server[i]).length;
    console.log(`in-page model against the server's engine on ${requests.length} exam situations: ${same} answers the same (page ${inPage.join(' ')}; server ${server.join(' ')})`);
    // llama.cpp in WebAssembly sums in another order than the native build: a close call may fall the other way.
    expect(same).toBeGreaterThanOrEqual(requests.length - 1);
    expect(problems).toEqual([]);
  }, 300_000);
});
