/**
 * The page's side panels as a person sees them, at the two window sizes people use most
 * (1024x640 and 1440x900): each agent card's title ("Blue 2") on one line, who plays each
 * agent readable in full ("bt-scripted (AI teammate)", not cut off), and after the match
 * has ended no panel still saying it waits for a model. In CI (CI=true) these tests fail
 * when chromium is missing; elsewhere they are skipped.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, CHROMIUM_PATH, type ServerProcess, chromiumAvailable, collectPageProblems, waitForHook } from '../../src/bench/harness';
import { startPageWithModel, stopPageWithModel } from '../helpers/pageWithModel';
import { FakeOpenAiServer } from '../llm/fakeOpenAiServer';

const inCi = /^(1|true)$/i.test(process.env.CI ?? '');
const haveChromium = chromiumAvailable();
if (!haveChromium && !inCi) console.warn(`panel browser tests skipped: no chromium at ${CHROMIUM_PATH} (apt-get install chromium)`);
const suite = haveChromium || inCi ? describe : describe.skip;

/** What a card shows, measured in the page: title lines, and any text cut short. */
interface CardLayout {
  readonly title: string;
  /** Lines the title takes (its height over its line height). */
  readonly titleLines: number;
  readonly controller: string;
  /** True when the controller's text is wider than its box (shown with an ellipsis). */
  readonly controllerCut: boolean;
}

suite('the side panels in a real browser', () => {
  let dev: ServerProcess | undefined;
  let browser: Browser | undefined;
  let fake: FakeOpenAiServer | undefined;
  const problems: string[] = [];

  beforeAll(async () => {
    // The llm team's model: answers that take a second, so a call is often out when the match ends.
    ({ fake, dev, browser } = await startPageWithModel({ behaviour: { kind: 'answer', delayMs: 1000 } }, { OPENAI_API_KEY: 'sk-e2e-panels', LLM_MODEL: 'fake-gemma', LLM_TIMEOUT_MS: '5000' }));
  }, 120_000);

  afterAll(() => stopPageWithModel({ fake, dev, browser }));

  afterEach(() => {
    expect(problems.splice(0), 'console errors in the page').toEqual([]);
  });

  async function open(query: string, viewport: { width: number; height: number }): Promise<Page> {
    const page = await browser!.context.newPage();
    await page.setViewportSize(viewport);
    collectPageProblems(page, problems);
    await page.goto(`${dev!.url}/${query}`);
    await waitForHook(page, 60_000);
    return page;
  }

  const cards = (page: Page): Promise<CardLayout[]> =>
    page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLElement>('#agent-cards .agent-card')).map((card) => {
        const name = card.querySelector<HTMLElement>('.agent-name')!;
        const controller = card.querySelector<HTMLElement>('.agent-controller')!;
        const lineHeight = parseFloat(getComputedStyle(name).lineHeight) || parseFloat(getComputedStyle(name).fontSize) * 1.2;
        return {
          title: name.innerText,
          titleLines: Math.round(name.getBoundingClientRect().height / lineHeight),
          controller: controller.innerText,
          controllerCut: controller.scrollWidth > controller.clientWidth + 1,
        };
      }),
    );

  for (const viewport of [
    { width: 1024, height: 640 },
    { width: 1440, height: 900 },
  ]) {
    it(`at ${viewport.width}x${viewport.height}: card titles on one line, every controller in full`, async () => {
      const page = await open('?renderer=canvas&intro=0&blue=human&teammate=bt-scripted&red=heuristic&seed=3&autostart=1', viewport);
      await page.waitForFunction(() => window.__hillmind!.state().mode === 'live' && window.__hillmind!.state().tick > 5, undefined, { timeout: 30_000 });
      const shown = await cards(page);
      expect(shown.map((c) => c.title)).toEqual(['Blue 1', 'Blue 2', 'Red 1', 'Red 2']);
      for (const card of shown) expect(card.titleLines, `${card.title} on one line`).toBe(1);
      expect(shown[1]!.controller).toBe('bt-scripted (AI teammate)');
      for (const card of shown) expect(card.controllerCut, `${card.title}: "${card.controller}" cut short`).toBe(false);
      await page.screenshot({ path: `test-artifacts/panels-${viewport.width}x${viewport.height}.png` });
      await page.close();
    }, 90_000);
  }

  it('after the match has ended, no strategist panel says it is waiting for the model', async () => {
    const page = await open('?renderer=canvas&intro=0&blue=llm&red=heuristic&seed=3&speed=8&autostart=1', { width: 1440, height: 900 });
    // A call is out: the panel says so while the match runs.
    await page.waitForFunction(() => /waiting for the model/.test(document.querySelector('#strategist-blue')?.textContent ?? ''), undefined, { timeout: 60_000 });
    await page.waitForFunction(() => window.__hillmind!.state().done, undefined, { timeout: 90_000 });
    // The panels refresh on the page's clock: let one more refresh pass.
    await page.waitForFunction(() => /Model: /.test(document.querySelector('#strategist-blue')?.textContent ?? ''));
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const panel = await page.locator('#strategist-panel').innerText();
    expect(panel).toMatch(/Model: .*\d+ asked, \d+ answered/);
    expect(panel).not.toMatch(/waiting for the model/);
    await page.close();
  }, 180_000);
});
