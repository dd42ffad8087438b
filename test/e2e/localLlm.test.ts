/**
 * The page's llm team on the embedded local model, in real chromium: with no model settings
 * the product's server runs Gemma 3 270M (npm run llm:pull) behind /api/llm, and llm vs bt
 * plays with its decisions and, in the json format, its rationales. In CI (CI=true) this
 * fails where chromium or the model is missing; elsewhere it is skipped, saying why.
 */
import { expect, it } from 'vitest';
import { collectPageProblems, waitForHook } from '../../src/bench/harness';
import { localModelBrowserSuite, useLocalModelBrowser } from '../helpers/localModelBrowser';

localModelBrowserSuite('local-model browser test')('the llm team in the browser, on the local model', () => {
  // A generous timeout: the first decisions wait for the model to load; live play never waits on it.
  const { dev, browser } = useLocalModelBrowser({ LLM_FORMAT: 'json', LLM_TIMEOUT_MS: '15000' });
  const problems: string[] = [];

  it('llm vs bt plays with decisions and rationales from the local model through /api/llm', async () => {
    const page = await browser().context.newPage();
    collectPageProblems(page, problems);
    const answers: string[] = [];
    page.on('response', async (res) => {
      if (res.url().endsWith('/api/llm') && res.ok()) answers.push(await res.text().catch(() => ''));
    });
    await page.goto(`${dev().url}/?renderer=canvas&intro=0&blue=llm&red=bt&seed=3&autostart=1`);
    await waitForHook(page, 60_000);

    // The server says which model it runs, and that it runs here.
    const status = JSON.parse(await page.evaluate(async () => (await fetch('/api/llm/status')).text())) as Record<string, unknown>;
    // Asked in json, the model runs alone: the shipped adapter teaches the terse format only.
    expect(status).toMatchObject({ configured: true, model: 'gemma-3-270m-q4_k_m-strategist', format: 'json' });
    expect(status.provider).toMatch(/^local llama\.cpp \(CPU, \d+ threads?\)$/);
    expect(status).not.toHaveProperty('baseUrl');

    await page.waitForFunction(() => window.__hillmind!.state().mode === 'live', undefined, { timeout: 60_000 });
    // A decision of the language model, and its rationale, show in the strategist panel.
    await page.waitForFunction(() => /language model/.test(document.querySelector('#strategist-blue')?.textContent ?? ''), undefined, { timeout: 120_000 });
    expect(await page.locator('#strategist-blue').innerText()).toMatch(/by language model at \d+:\d\d\.\d \(asked at \d+:\d\d\.\d on [a-z+-]+, \d+ ms\)/);
    await page.waitForSelector('#strategist-blue .strat-rationale:not([hidden])', { timeout: 120_000 });
    expect((await page.locator('#strategist-blue .strat-rationale').innerText()).trim()).not.toBe('');
    // The panel says how the model's calls go: how long the last answer took, and the counts.
    await page.waitForFunction(() => /last answer took \d+ ms/.test(document.querySelector('#strategist-blue .strat-model')?.textContent ?? ''), undefined, { timeout: 120_000 });
    expect(await page.locator('#strategist-blue .strat-model').innerText()).toMatch(/^Model: .*\d+ asked, \d+ answered/);

    // The answers came from the model through the proxy, counted by its own tokenizer.
    expect(answers.length).toBeGreaterThan(0);
    const answer = JSON.parse(answers[0]!) as { text: string; model: string; promptTokens: number; completionTokens: number };
    expect(answer.model).toBe('gemma-3-270m-q4_k_m-strategist');
    expect(JSON.parse(answer.text)).toMatchObject({ skills: expect.any(Array), rationale: expect.any(String) });
    expect(answer.promptTokens).toBeGreaterThan(300);
    expect(answer.completionTokens).toBeGreaterThan(5);
    // The match goes on (live play never waits for the model): 25 ticks more, or to its end
    // (on a busy machine the first answers come late, and the match may be over by now).
    const tick = await page.evaluate(() => window.__hillmind!.state().tick);
    await page.waitForFunction((t) => window.__hillmind!.state().tick > t + 25 || window.__hillmind!.state().done, tick, { timeout: 30_000 });
    await page.close();
    expect(problems).toEqual([]);
  }, 300_000);
});
