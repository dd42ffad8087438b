/**
 * The planner in a real browser (Debian's chromium, the built app on our own server): picked
 * in the page, it plays, the strategist panel shows its choice and what it expected of each
 * option, the page keeps drawing frames while it plans (it plans in slices), and the match
 * it played is the one Node plays from the same seed, to the state hash, and verifies.
 * In CI (CI=true) these tests fail when chromium is missing; elsewhere they are skipped.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Match, parseReplay, verifyReplayWithModels } from '../../src/match';
import { hashWorld } from '../../src/sim';
import { type Browser, CHROMIUM_PATH, type ServerProcess, buildApp, chromiumAvailable, collectPageProblems, launchChromium, startServerProcess, waitForHook } from '../../src/bench/harness';
import { TEST_PLATFORM } from '../helpers/platform';

const inCi = /^(1|true)$/i.test(process.env.CI ?? '');
const haveChromium = chromiumAvailable();
if (!haveChromium && !inCi) console.warn(`browser tests skipped: no chromium at ${CHROMIUM_PATH} (apt-get install chromium)`);
const suite = haveChromium || inCi ? describe : describe.skip;

suite('the planner in a real browser', () => {
  let server: ServerProcess | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    if (!haveChromium) throw new Error(`no chromium at ${CHROMIUM_PATH}: CI must install it (.ci/run does)`);
    buildApp();
    server = await startServerProcess();
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function open(query: string): Promise<{ page: Page; problems: string[] }> {
    const problems: string[] = [];
    const page = await browser!.context.newPage();
    collectPageProblems(page, problems);
    await page.goto(`${server!.url}/${query}`);
    await waitForHook(page);
    return { page, problems };
  }

  it('plays planner picked in the page, shows its plans, and plays what Node plays', async () => {
    const { page, problems } = await open('?renderer=canvas&intro=0');
    await page.selectOption('#blue-team', 'planner');
    await page.selectOption('#red-team', 'bt');
    await page.fill('#seed', '4');
    await page.locator('#seed').blur();
    await page.click('#start');
    await page.click('#speed button[data-speed="8"]');
    await page.waitForFunction(() => window.__hillmind!.state().mode === 'live' && window.__hillmind!.state().tick > 60, null, { timeout: 90_000 });

    const blue = await page.locator('#strategist-blue').innerText();
    expect(blue).toMatch(/by planner at/);
    expect(blue).toMatch(/planned \S+ \(-?\d+\.\d\d\) at \d+\.\d s; options (\S+ -?\d+\.\d\d, ){2,}/);

    await page.click('#pause');
    const text = await page.evaluate(() => window.__hillmind!.replayText());
    await page.close();
    expect(problems).toEqual([]);

    const replay = parseReplay(text!);
    expect(replay.teams.blue).toBe('planner');
    expect(replay.decisions.some((d) => d.source === 'planner' && d.rationale?.startsWith('planned '))).toBe(true);
    const verified = await verifyReplayWithModels(replay, { models: TEST_PLATFORM.models });
    expect(verified.problems).toEqual([]);
    expect(verified.sides.blue.checked).toBe(true);
    // Node, planning at once, plays the same match to the same state.
    const node = await Match.create({ blue: 'planner', red: 'bt', seed: 4 }, { platform: TEST_PLATFORM, record: false });
    while (node.world.tick < replay.ticks) {
      const pending = node.advance();
      if (pending) await pending;
    }
    expect(hashWorld(node.world)).toBe(replay.finalHash);
  }, 240_000);

  it('keeps drawing frames while it plans', async () => {
    // Plans long enough to span many slices on any machine: 27 rollouts of 10 s each.
    const { page, problems } = await open('?renderer=canvas&intro=0&blue=planner:horizon=10:rollouts=3&red=bt&seed=2&speed=8&autostart=1');
    await page.waitForFunction(() => window.__hillmind!.state().mode === 'live' && window.__hillmind!.state().tick > 0, null, { timeout: 90_000 });
    // At 8x every frame of a playing match plays ticks, so a frame that played none was
    // drawn while the match waited for a plan: the planner paused between its slices.
    const heldFrames = await page.evaluate(
      () =>
        new Promise<number>((done) => {
          let frames = 120;
          let held = 0;
          let last = window.__hillmind!.state().tick;
          const next = () => {
            const s = window.__hillmind!.state();
            if (s.tick === last && !s.done && !s.paused) held++;
            last = s.tick;
            if (--frames <= 0 || s.done) done(held);
            else requestAnimationFrame(next);
          };
          requestAnimationFrame(next);
        }),
    );
    expect(heldFrames).toBeGreaterThan(0);
    expect(await page.locator('#strategist-blue').innerText()).toMatch(/planned /);
    await page.close();
    expect(problems).toEqual([]);
  }, 240_000);
});
