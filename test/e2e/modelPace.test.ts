/**
 * A language model slower than the game, in a real browser: two llm teams play through the
 * proxy (Vite's dev server) against a stand-in model server that takes 150 ms an answer.
 * At 8x the page says the model decides slower than the game, with how often it decided of
 * how often it was asked; "Wait for the model" holds the game for each decision, so the
 * model decides every time it is asked; the Playback switch turns waiting off again; and the
 * match's replay, waited part and all, verifies. Counts, never wall time. In CI (CI=true)
 * these tests fail when chromium is missing; elsewhere they are skipped.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, CHROMIUM_PATH, chromiumAvailable, collectPageProblems, waitForHook } from '../../src/bench/harness';
import { parseReplay, verifyReplay } from '../../src/match';
import { startPageWithModel, stopPageWithModel } from '../helpers/pageWithModel';
import { FakeOpenAiServer } from '../llm/fakeOpenAiServer';

const inCi = /^(1|true)$/i.test(process.env.CI ?? '');
const haveChromium = chromiumAvailable();
if (!haveChromium && !inCi) console.warn(`model pace browser tests skipped: no chromium at ${CHROMIUM_PATH} (apt-get install chromium)`);
const suite = haveChromium || inCi ? describe : describe.skip;

/**
 * The stand-in model's time per answer: at 8x the game asks (2 Hz of game time) about six
 * times as often as it answers, and still twice as often where a busy machine lets the page
 * play only 2x.
 */
const ANSWER_MS = 400;
/** Game-seconds the page measures over before it judges (PACE_RULES.minSeconds), in ticks at 50 Hz. */
const JUDGED_TICKS = 4 * 50;

suite('a language model slower than the game, in the page', () => {
  let fake: FakeOpenAiServer;
  let dev: { url: string; stop(): Promise<void> } | undefined;
  let browser: Browser | undefined;
  const problems: string[] = [];

  beforeAll(async () => {
    // Both teams keep to their bases, one agent now and then fighting, so the match runs on
    // (nobody holds the zone) and their skills change, which the replay records as decisions.
    // While the game waits, blue and red ask in turn: calls 0 and 1 are both sides' first, 2
    // and 3 their second, so each side's answers alternate.
    const text = (index: number) => (Math.floor(index / 2) % 2 === 0 ? 'retreat,retreat' : 'combat,retreat');
    // Periodic requests only (2 Hz), so the asked rate is the whole of what is asked; scripted skills, so Node verifies the replay without models.
    ({ fake, dev, browser } = await startPageWithModel(
      { behaviour: (index) => ({ kind: 'answer', delayMs: ANSWER_MS, text: text(index) }) },
      { OPENAI_API_KEY: 'sk-e2e-pace', LLM_MODEL: 'fake-slow', LLM_EVENTS: 'none', LLM_SKILLS: 'scripted' },
    ));
  }, 120_000);

  afterAll(() => stopPageWithModel({ fake, dev, browser }));

  const state = (page: Page) => page.evaluate(() => window.__hillmind!.state());
  /** Wait for `what`; where it does not come, fail with what the page's match was doing. */
  const until = async (page: Page, what: string, wait: Promise<unknown>) => {
    try {
      await wait;
    } catch (err) {
      const s = await state(page);
      throw new Error(`${what} did not come (${(err as Error).message.split('\n')[0]}): tick ${s.tick}, done ${s.done}, speed ${s.speed}, waiting ${s.waitForModel}, pace ${JSON.stringify(s.modelPace)}`);
    }
  };
  const notice = (page: Page, shown: 'visible' | 'hidden') => until(page, `the notice ${shown}`, page.waitForSelector('#model-pace', { state: shown, timeout: 60_000 }));
  /** Wait until the page has measured both models over at least JUDGED_TICKS since the latest change. */
  const judged = (page: Page) =>
    until(page, 'a judged pace', page.waitForFunction((ticks) => window.__hillmind!.state().modelPace.every((p) => p !== null && p.seconds * 50 >= ticks), JUDGED_TICKS, { timeout: 60_000 }));

  it('says at 8x that the model decides slower than the game, waits for it when asked, and the replay verifies', async () => {
    const page = await browser!.context.newPage();
    collectPageProblems(page, problems);
    await page.goto(`${dev!.url}/?renderer=canvas&intro=0&blue=llm&red=llm&seed=5&speed=8&autostart=1`);
    await waitForHook(page, 60_000);
    await page.waitForFunction(() => window.__hillmind!.state().mode === 'live', undefined, { timeout: 30_000 });
    // The switch is offered where a language model plays, off.
    await page.waitForSelector('#wait-model-toggle:not([hidden])');
    expect(await page.locator('#wait-model-toggle').innerText()).toBe('Wait for the model: off');

    // At 8x the model answers about one request in four: the notice says so, with the counts.
    await notice(page, 'visible');
    expect(await page.locator('#model-pace-text').innerText()).toMatch(/^The language model playing (blue|red) decides slower than the game at 8x: it decided \d+ times? in the last \d+ game-seconds, of \d+ asked\./);
    const behind = (await state(page)).modelPace.filter((p) => p?.behind);
    expect(behind.length).toBeGreaterThan(0);
    for (const p of behind) expect(p!.decided).toBeLessThan(0.8 * p!.asked);

    // Wait for the model: the notice goes, the switch says so, and the game holds for each decision.
    await page.click('#wait-for-model');
    await notice(page, 'hidden');
    expect(await page.locator('#wait-model-toggle').innerText()).toBe('Wait for the model: on');
    const waitedFrom = (await state(page)).tick;
    await judged(page);
    const waited = await state(page);
    expect(waited.waitForModel).toBe(true);
    expect(waited.speed).toBe(8);
    expect(waited.done).toBe(false);
    // Every request its rate asked for since the switch was answered before the game went on.
    for (const p of waited.modelPace) {
      expect(p!.behind).toBe(false);
      expect(p!.decided).toBeGreaterThanOrEqual(p!.asked - 1);
    }
    expect(await page.locator('#model-pace').isHidden()).toBe(true);

    // The way back: the Playback switch turns waiting off, and the model falls behind again.
    await page.click('#wait-model-toggle');
    expect(await page.locator('#wait-model-toggle').innerText()).toBe('Wait for the model: off');
    const liveFrom = (await state(page)).tick;
    await notice(page, 'visible');
    expect((await state(page)).waitForModel).toBe(false);

    await page.click('#pause');
    const text = await page.evaluate(() => window.__hillmind!.replayText());
    await page.close();
    expect(problems).toEqual([]);

    // The replay holds the decisions as they applied: while waiting, each at its request tick;
    // before and after, some ticks after it. It verifies, waited part and all.
    const replay = parseReplay(text!);
    const decisions = replay.decisions.map((d) => d as typeof d & { timing?: { requestTick: number } });
    const whileWaiting = decisions.filter((d) => d.tick > waitedFrom && d.tick < liveFrom);
    const live = decisions.filter((d) => d.tick < waitedFrom || d.tick > liveFrom);
    expect(whileWaiting.length).toBeGreaterThan(0);
    for (const d of whileWaiting) expect(d.timing?.requestTick).toBe(d.tick);
    expect(live.some((d) => d.timing !== undefined && d.timing.requestTick < d.tick)).toBe(true);
    const verified = verifyReplay(replay);
    expect(verified.problems).toEqual([]);
    expect(verified.ok).toBe(true);
  }, 180_000);
});
