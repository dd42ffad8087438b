/**
 * The `llm` team in a real browser through the proxy: the page (served by Vite's dev
 * server with the proxy plugin) gets its decisions from POST /api/llm, which forwards them
 * to the OpenAI-compatible test server with the key; the key never reaches the page. In CI
 * (CI=true) these tests fail when chromium is missing; elsewhere they are skipped.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, CHROMIUM_PATH, chromiumAvailable, collectPageProblems, waitForHook } from '../../src/bench/harness';
import { startPageWithModel, stopPageWithModel } from '../helpers/pageWithModel';
import { FakeOpenAiServer } from '../llm/fakeOpenAiServer';

const SECRET = 'sk-e2e-do-not-leak-7f3a9c';
const inCi = /^(1|true)$/i.test(process.env.CI ?? '');
const haveChromium = chromiumAvailable();
if (!haveChromium && !inCi) console.warn(`llm proxy browser tests skipped: no chromium at ${CHROMIUM_PATH} (apt-get install chromium)`);
const suite = haveChromium || inCi ? describe : describe.skip;

suite('the llm team in the browser, through the proxy', () => {
  let fake: FakeOpenAiServer;
  let dev: { url: string; stop(): Promise<void> } | undefined;
  let browser: Browser | undefined;
  /** Everything the page received or sent: response bodies and request bodies. */
  const traffic: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    ({ fake, dev, browser } = await startPageWithModel({}, { OPENAI_API_KEY: SECRET, LLM_MODEL: 'fake-gemma', LLM_TIMEOUT_MS: '5000' }));
  }, 120_000);

  afterAll(() => stopPageWithModel({ fake, dev, browser }));

  async function open(query: string): Promise<Page> {
    const page = await browser!.context.newPage();
    collectPageProblems(page, problems);
    page.on('request', (req) => {
      const body = req.postData();
      if (body) traffic.push(body);
      traffic.push(JSON.stringify(req.headers()));
    });
    page.on('response', async (res) => {
      traffic.push(JSON.stringify(await res.allHeaders().catch(() => ({}))));
      try {
        traffic.push((await res.body()).toString('utf8'));
      } catch {
        // redirects and aborted loads have no body
      }
    });
    await page.goto(`${dev!.url}/${query}`);
    await waitForHook(page, 60_000);
    return page;
  }

  it('plays llm decisions that came through /api/llm, and the page never holds the key', async () => {
    fake.behaviour = { kind: 'answer' };
    const page = await open('?renderer=canvas&intro=0&blue=llm&red=heuristic&seed=3&speed=2&autostart=1');
    await page.waitForFunction(() => window.__hillmind!.state().mode === 'live', undefined, { timeout: 30_000 });
    // A decision by the language model shows in the strategist panel.
    await page.waitForFunction(() => /language model/.test(document.querySelector('#strategist-blue')?.textContent ?? ''), undefined, { timeout: 30_000 });
    expect(fake.calls.length).toBeGreaterThan(0);
    // Each decision with when it was asked, on what, and how long the answer took.
    expect(await page.locator('#strategist-blue').innerText()).toMatch(/by language model at \d+:\d\d\.\d \(asked at \d+:\d\d\.\d on [a-z+-]+, \d+ ms\)/);
    // The model server saw the key, from the server side.
    expect(fake.calls[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(fake.calls[0]!.body).toMatchObject({ model: 'fake-gemma', temperature: 0.1 });

    // The page's own view of the proxy: configured, no key.
    const status = await page.evaluate(async () => (await fetch('/api/llm/status')).text());
    expect(JSON.parse(status)).toMatchObject({ configured: true, model: 'fake-gemma', keySet: true });
    expect(page.url()).not.toContain(SECRET);
    const inPage = await page.evaluate(() => [document.documentElement.outerHTML, JSON.stringify(localStorage), JSON.stringify(sessionStorage), document.cookie, JSON.stringify(performance.getEntries().map((e) => e.name))].join('\n'));
    expect(inPage).not.toContain(SECRET);
    await page.close();

    expect(traffic.some((t) => t.includes('"messages"'))).toBe(true);
    expect(traffic.length).toBeGreaterThan(20);
    for (const t of traffic) expect(t.includes(SECRET)).toBe(false);
    expect(problems).toEqual([]);
  }, 120_000);

  it('where the server has no model, llm is refused in the page with how to configure one; other teams still play', async () => {
    const page = await browser!.context.newPage();
    await page.route('**/api/llm/status', (route) =>
      route.fulfill({ json: { configured: false, error: 'no language model is configured (OPENAI_BASE_URL and LLM_MODEL not set)', help: 'set OPENAI_BASE_URL and LLM_MODEL, for example:\n  Ollama:    OPENAI_BASE_URL=http://localhost:11434/v1 LLM_MODEL=gemma3:27b' } }),
    );
    await page.goto(`${dev!.url}/?renderer=canvas&intro=0&blue=llm&red=heuristic&seed=3&autostart=1`);
    await waitForHook(page, 60_000);
    await page.waitForSelector('#error:not([hidden])', { timeout: 30_000 });
    // The chooser marks it, and its hint says so in two lines, with a link to the guide (the settings are in the error below).
    await page.waitForFunction(() => document.querySelector('#blue-team option[value="llm"]')?.textContent === 'llm (not configured)');
    await page.waitForSelector('#blue-llm-help:not([hidden])');
    expect(await page.locator('#blue-llm-help').innerText()).toMatch(/^No language model on this server\.\s+How to set one up$/);
    expect(await page.locator('#blue-llm-help a').getAttribute('href')).toMatch(/#the-llm-strategist$/);
    expect(await page.locator('#blue-info').innerText()).not.toContain('OPENAI_BASE_URL');
    const text = await page.locator('#error').innerText();
    expect(text).toMatch(/Could not start llm vs heuristic: team 'llm' is not available/);
    expect(text).toContain('OPENAI_BASE_URL=http://localhost:11434/v1 LLM_MODEL=gemma3:27b');
    await page.click('#error button');
    await page.selectOption('#blue-team', 'bt-scripted');
    await page.click('#start');
    await page.waitForFunction(() => window.__hillmind!.state().mode === 'live' && window.__hillmind!.state().tick > 10, undefined, { timeout: 30_000 });
    await page.close();
  }, 120_000);
});
