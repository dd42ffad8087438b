/**
 * The product in a real browser: Debian's chromium driven by playwright-core against the
 * built app served by our own server. In CI (CI=true) these tests fail when chromium is
 * missing; elsewhere they are skipped with a message.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseReplay, verifyReplay } from '../../src/match';
import {
  type Browser,
  CHROMIUM_PATH,
  type ServerProcess,
  buildApp,
  chromiumAvailable,
  launchChromium,
  startServerProcess,
  waitForHook,
} from '../../src/server/harness';
import { canvasSize, toPx } from '../../src/web/layout';
import { DEFAULT_CONFIG } from '../../src/sim';

const inCi = /^(1|true)$/i.test(process.env.CI ?? '');
const haveChromium = chromiumAvailable();
if (!haveChromium && !inCi) console.warn(`browser tests skipped: no chromium at ${CHROMIUM_PATH} (apt-get install chromium)`);
const suite = haveChromium || inCi ? describe : describe.skip;

const ARTIFACTS = 'test-artifacts';

suite('the product in a real browser', () => {
  let server: ServerProcess | undefined;
  let browser: Browser | undefined;
  let tmp: string;
  const problems: string[] = [];

  beforeAll(async () => {
    if (!haveChromium) throw new Error(`no chromium at ${CHROMIUM_PATH}: CI must install it (.ci/run does)`);
    mkdirSync(ARTIFACTS, { recursive: true });
    tmp = mkdtempSync(join(tmpdir(), 'hillmind-e2e-'));
    buildApp();
    server = await startServerProcess();
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  afterEach(() => {
    const found = problems.splice(0);
    expect(found, 'console errors in the page').toEqual([]);
  });

  async function open(query: string): Promise<Page> {
    const page = await browser!.context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console.error: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
    await page.goto(`${server!.url}/${query}`);
    await waitForHook(page);
    return page;
  }

  const state = (page: Page) => page.evaluate(() => window.__hillmind!.state());
  const tick = async (page: Page) => (await state(page)).tick;

  it('loads with no console errors and tells a newcomer what to do', async () => {
    const page = await open('?renderer=canvas');
    await page.waitForTimeout(500);
    expect(await page.locator('#intro').isVisible()).toBe(true);
    expect(await page.locator('#intro').innerText()).toMatch(/how a match works[\s\S]*bt-scripted/i);
    expect(await page.locator('#controls-panel').innerText()).toMatch(/W A S D[\s\S]*Shift/);
    expect(await page.locator('#arena canvas').count()).toBe(1);
    expect(await page.evaluate(() => window.__hillmind!.renderer)).toBe('Canvas');
    // COOP/COEP from the server make the page cross-origin isolated (threaded WebAssembly needs it).
    expect(await page.evaluate(() => window.crossOriginIsolated)).toBe(true);
    expect(await page.locator('#error').isVisible()).toBe(false);
    await page.screenshot({ path: join(ARTIFACTS, 'browser-start.png') });
    await page.close();
  });

  it('draws with the default renderer too (Phaser.AUTO)', async () => {
    const page = await open('?intro=0');
    await page.waitForTimeout(300);
    expect(['WebGL', 'Canvas']).toContain(await page.evaluate(() => window.__hillmind!.renderer));
    await page.close();
  });

  it('plays the trained teams (bt over RL skills vs flat) with onnxruntime-web', async () => {
    const page = await open('?renderer=canvas&intro=0');
    await page.selectOption('#blue-team', 'bt');
    await page.selectOption('#red-team', 'flat');
    await page.click('#start');
    await page.waitForFunction(() => window.__hillmind!.state().mode === 'live' && window.__hillmind!.state().tick > 100, null, { timeout: 30_000 });
    expect(await page.locator('#error').isVisible()).toBe(false);
    expect(await page.locator('#agents-panel').innerText()).toMatch(/Navigate|Combat|Secure|Retreat/);
    await page.close();
  });

  it('shows a model that fails to load as an error in the page', async () => {
    const page = await open('?renderer=canvas&intro=0');
    await page.route('**/models/combat.onnx', (route) => route.fulfill({ status: 200, body: 'not a model' }));
    await page.selectOption('#blue-team', 'bt');
    await page.click('#start');
    await page.waitForSelector('#error:not([hidden])');
    expect(await page.locator('#error').innerText()).toMatch(/Could not start bt vs heuristic[\s\S]*combat\.onnx is not the model its card describes: its SHA-256 is [0-9a-f]{64}/);
    expect((await state(page)).mode).toBe('idle');
    await page.click('#error button');
    expect(await page.locator('#error').isVisible()).toBe(false);
    // The failed model is not cached: the page still plays other teams.
    await page.selectOption('#blue-team', 'bt-scripted');
    await page.click('#start');
    await page.waitForFunction(() => window.__hillmind!.state().tick > 10);
    await page.close();
  });

  it('runs a match: the scoreboard changes, pause, step and speed work', async () => {
    const page = await open('?renderer=canvas&intro=0');
    await page.selectOption('#blue-team', 'bt-scripted');
    await page.selectOption('#red-team', 'heuristic');
    await page.fill('#seed', '3');
    await page.locator('#seed').blur();
    await page.click('#start');
    await page.waitForFunction(() => window.__hillmind!.state().mode === 'live' && window.__hillmind!.state().tick > 10);
    const clockBefore = await page.locator('#clock').innerText();
    await page.evaluate(() => window.__hillmind!.resetFrameStats());
    // The pace is checked by counting, not by the wall clock: every tick played stands for
    // 20 ms of game time, and game time is the display frames' time times the speed. That
    // holds however many frames a busy machine manages.
    const displayFrames = (n: number) =>
      page.evaluate(
        (count) =>
          new Promise<void>((done) => {
            let left = count;
            const next = () => (--left <= 0 ? done() : requestAnimationFrame(next));
            requestAnimationFrame(next);
          }),
        n,
      );
    const played = async (frames: number) => {
      const a = await state(page);
      await displayFrames(frames);
      const b = await state(page);
      const gameMs = b.pace.gameMs - a.pace.gameMs;
      return { ticks: b.tick - a.tick, frameMs: b.pace.frameMs - a.pace.frameMs, gameMs, playedMs: gameMs - (b.pace.droppedGameMs - a.pace.droppedGameMs) };
    };
    const at1 = await played(30);
    const frames = await page.evaluate(() => window.__hillmind!.frameStats());
    writeFileSync(join(ARTIFACTS, 'frame-times.json'), JSON.stringify(frames, null, 2));
    expect(frames.frames).toBeGreaterThanOrEqual(25);
    expect(await page.locator('#clock').innerText()).not.toBe(clockBefore);
    expect(at1.frameMs).toBeGreaterThan(0);
    expect(at1.gameMs).toBeCloseTo(at1.frameMs, 6); // 1x: game time is frame time
    expect(Math.abs(at1.ticks - at1.playedMs / 20)).toBeLessThanOrEqual(1);

    await page.click('#pause');
    expect(await page.locator('#pause').innerText()).toBe('Resume');
    const pausedAt = await state(page);
    await displayFrames(10);
    expect((await state(page)).tick).toBe(pausedAt.tick);
    expect((await state(page)).pace.frameMs).toBe(pausedAt.pace.frameMs);
    await page.click('#step');
    expect(await tick(page)).toBe(pausedAt.tick + 1);
    await page.click('#pause');

    await page.click('#speed button[data-speed="4"]');
    await page.waitForFunction(() => window.__hillmind!.state().speed === 4);
    const at4 = await played(20);
    expect(at4.gameMs).toBeCloseTo(4 * at4.frameMs, 6); // 4x: four times the frame time
    expect(Math.abs(at4.ticks - at4.playedMs / 20)).toBeLessThanOrEqual(1);
    expect(at4.ticks).toBeGreaterThan(0);
    await page.screenshot({ path: join(ARTIFACTS, 'browser-match.png') });

    await page.click('#speed button[data-speed="8"]');
    await page.waitForFunction(() => {
      const values = Array.from(document.querySelectorAll('#scoreboard .sb-value')).map((e) => e.textContent);
      return values.some((v) => v && !v.startsWith('0.0 '));
    });
    expect(await page.locator('#event-feed li').count()).toBeGreaterThan(1);
    expect(await page.locator('#agent-cards .skill-pill').first().innerText()).toMatch(/Navigate|Combat|Secure|Retreat/);
    expect(await page.locator('#strategist-blue').innerText()).toMatch(/behavior tree|starting skills/);
    await page.close();
  });

  it('lets a person move, aim and fire; their inputs go into the saved replay', async () => {
    const page = await open('?renderer=canvas&intro=0');
    await page.selectOption('#blue-team', 'human');
    await page.selectOption('#teammate-team', 'bt-scripted');
    await page.selectOption('#red-team', 'heuristic');
    await page.click('#start');
    await page.waitForFunction(() => window.__hillmind!.state().mode === 'live');
    const s0 = await state(page);
    expect(s0.humanAgents).toEqual([0]);
    const me0 = s0.agents[0]!;

    // Keys are held until the agent has moved (however long a busy machine takes), not for a fixed time.
    const me = () => window.__hillmind!.state().agents[0]!;
    await page.keyboard.down('KeyD');
    await page.waitForFunction((x0) => window.__hillmind!.state().agents[0]!.x > x0 + 1, me0.x);
    await page.keyboard.up('KeyD');
    const me1 = await page.evaluate(me);
    expect(Math.abs(me1.y - me0.y)).toBeLessThan(0.3);

    await page.keyboard.down('KeyW');
    await page.waitForFunction((y1) => window.__hillmind!.state().agents[0]!.y < y1 - 0.5, me1.y);
    await page.keyboard.up('KeyW');
    const me2 = await page.evaluate(me);

    // Point below the agent: it turns to face down the screen (+y).
    const box = (await page.locator('#arena canvas').boundingBox())!;
    const size = canvasSize(DEFAULT_CONFIG);
    await page.mouse.move(box.x + (toPx(me2.x) / size.width) * box.width, box.y + (toPx(me2.y + 4) / size.height) * box.height);
    await page.waitForFunction(() => Math.abs(window.__hillmind!.state().agents[0]!.angle - Math.PI / 2) < 0.1);

    await page.keyboard.down('Space');
    await page.waitForFunction(() => /of \d+ shots/.test(document.querySelector('#agent-cards [data-agent="0"]')?.textContent ?? ''));
    await page.keyboard.up('Space');

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#save-replay')]);
    const file = join(tmp, download.suggestedFilename());
    await download.saveAs(file);
    const replay = parseReplay(readFileSync(file, 'utf8'), file);
    expect(replay.teams.blue).toBe('human');
    const mine = replay.actions.filter((r) => r[1] === 0);
    expect(mine.some((r) => r[2] !== 0 || r[4] !== 0)).toBe(true); // moved
    expect(mine.some((r) => r[6] === 1)).toBe(true); // fired
    expect(verifyReplay(replay).ok).toBe(true);
    await page.close();
  });

  it('lets a second person play the other blue agent', async () => {
    const page = await open('?renderer=canvas&intro=0&blue=human&teammate=heuristic&players=2&autostart=1');
    await page.waitForFunction(() => window.__hillmind!.state().mode === 'live');
    const s0 = await state(page);
    expect(s0.humanAgents).toEqual([0, 1]);
    await page.keyboard.down('KeyL');
    await page.waitForFunction((x0) => window.__hillmind!.state().agents[1]!.x > x0 + 0.8, s0.agents[1]!.x);
    await page.keyboard.up('KeyL');
    const s1 = await state(page);
    expect(Math.abs(s1.agents[0]!.x - s0.agents[0]!.x)).toBeLessThan(0.01);
    expect(await page.locator('#agent-cards [data-agent="1"]').innerText()).toMatch(/Player 2/);
    await page.close();
  });

  it('plays a replay from the match command to the same final hash as Node', async () => {
    const file = join(tmp, 'cli-replay.json');
    const cli = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'src/cli/match.ts', '--blue', 'bt-scripted', '--red', 'random', '--seed', '12', '--replay', file, '--json'],
      { encoding: 'utf8' },
    );
    expect(cli.status, cli.stderr).toBe(0);
    const nodeHash = (JSON.parse(cli.stdout) as { hash: string }).hash;
    const replay = parseReplay(readFileSync(file, 'utf8'));

    const page = await open('?renderer=canvas&intro=0');
    await page.setInputFiles('#replay-file', file);
    await page.waitForFunction(() => window.__hillmind!.state().mode === 'replay');
    expect(await page.locator('#replay-info').innerText()).toMatch(/bt-scripted vs random, seed 12/);
    // Scrub to the middle, then back near the start, then play to the end at 8x.
    const scrub = page.locator('#replay-scrub');
    await scrub.evaluate((el, t) => {
      (el as HTMLInputElement).value = String(t);
      el.dispatchEvent(new Event('input', { bubbles: true }));
    }, Math.floor(replay.ticks / 2));
    expect(await tick(page)).toBeGreaterThanOrEqual(Math.floor(replay.ticks / 2));
    await scrub.evaluate((el) => {
      (el as HTMLInputElement).value = '20';
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    expect(await tick(page)).toBeLessThan(40);
    await page.click('#speed button[data-speed="8"]');
    await page.waitForFunction(() => window.__hillmind!.state().done, undefined, { timeout: 20_000 });
    const end = await state(page);
    expect(end.hash).toBe(nodeHash);
    expect(end.tick).toBe(replay.ticks);
    expect(await page.locator('#replay-check').getAttribute('class')).toMatch(/\bok\b/);
    expect(await page.locator('#replay-check').innerText()).toContain(nodeHash);
    await page.close();
  });
});
