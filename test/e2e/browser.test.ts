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
  collectPageProblems,
  launchChromium,
  startServerProcess,
  waitForHook,
} from '../../src/bench/harness';
import { canvasSize, toPx } from '../../src/web/layout';
import { DEFAULT_CONFIG } from '../../src/sim';
import { LLM_SETUP_HELP } from '../../src/llm/settings';

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
    collectPageProblems(page, problems);
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

  it('draws with the default renderer too (Phaser.AUTO), and plays 4x by the page clock on it', async () => {
    // Two random teams play the whole 60 s: the match is still on when the frames are counted.
    const page = await open('?intro=0&blue=random&red=random&speed=4&autostart=1');
    expect(['WebGL', 'Canvas']).toContain(await page.evaluate(() => window.__hillmind!.renderer));
    await page.waitForFunction(() => window.__hillmind!.state().tick > 0);
    // Over 20 display frames: the game time is 4x the clock's time between frames (not the
    // renderer's delta, which Phaser smooths and caps), and every 20 ms of it is one tick.
    const sample = await page.evaluate(
      (frames) =>
        new Promise<{ clockMs: number; frameMs: number; gameMs: number; droppedMs: number; ticks: number; wallMs: number; maxGapMs: number }>((done) => {
          const hook = window.__hillmind!;
          const a = hook.state();
          const t0 = performance.now();
          let last = t0;
          let maxGapMs = 0;
          let left = frames;
          const next = () => {
            const now = performance.now();
            maxGapMs = Math.max(maxGapMs, now - last);
            last = now;
            if (--left > 0) return void requestAnimationFrame(next);
            const b = hook.state();
            done({
              clockMs: b.pace.clockMs - a.pace.clockMs,
              frameMs: b.pace.frameMs - a.pace.frameMs,
              gameMs: b.pace.gameMs - a.pace.gameMs,
              droppedMs: b.pace.droppedGameMs - a.pace.droppedGameMs,
              ticks: b.tick - a.tick,
              wallMs: now - t0,
              maxGapMs,
            });
          };
          requestAnimationFrame(next);
        }),
      20,
    );
    writeFileSync(join(ARTIFACTS, 'default-renderer-pace.json'), JSON.stringify(sample, null, 2));
    // The session's clock is the page's: what it counted is the wall time of those frames, give or take a frame at each end.
    expect(Math.abs(sample.clockMs - sample.wallMs)).toBeLessThanOrEqual(2 * sample.maxGapMs);
    expect(sample.gameMs).toBeCloseTo(4 * sample.frameMs, 6);
    expect(Math.abs(sample.ticks - (sample.gameMs - sample.droppedMs) / 20)).toBeLessThanOrEqual(1);
    // Where the machine kept up (no frame over the 250 ms catch-up bound, nothing dropped), that is 4x the clock exactly.
    if (sample.droppedMs === 0 && sample.clockMs === sample.frameMs) expect(Math.abs(sample.ticks - (4 * sample.clockMs) / 20)).toBeLessThanOrEqual(1);
    await page.close();
  });

  it('keeps the scoreboard, the arena and the strategists in view together at 1024x640', async () => {
    const page = await open('?renderer=canvas&intro=0&blue=bt-scripted&red=heuristic&autostart=1');
    await page.setViewportSize({ width: 1024, height: 640 });
    await page.waitForFunction(() => window.__hillmind!.state().tick > 100 && (document.getElementById('strategist-blue')?.textContent ?? '').includes('by behavior tree'));
    for (const selector of ['#scoreboard', '#arena', '#strategist-panel']) {
      const box = (await page.locator(selector).boundingBox())!;
      expect(box.y, selector).toBeGreaterThanOrEqual(0);
      expect(box.y + box.height, selector).toBeLessThanOrEqual(640);
      expect(box.x, selector).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, selector).toBeLessThanOrEqual(1024);
    }
    // Both teams' strategists side by side, the latest decision showing.
    const [blue, red] = [(await page.locator('#strategist-blue').boundingBox())!, (await page.locator('#strategist-red').boundingBox())!];
    expect(Math.abs(blue.y - red.y)).toBeLessThan(2);
    expect(blue.y + 40).toBeLessThanOrEqual(640);
    await page.screenshot({ path: join(ARTIFACTS, 'layout-1024x640-strategists.png') });
    await page.close();
  });

  it('says in two lines, with a link to the guide, that llm needs a language model', async () => {
    const page = await browser!.context.newPage();
    page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
    // A server with no model: its status carries the full settings help (about 30 lines in a narrow sidebar before).
    await page.route('**/api/llm/status', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ configured: false, error: 'the local model gemma3-270m is not pulled yet', help: LLM_SETUP_HELP }) }),
    );
    await page.goto(`${server!.url}/?renderer=canvas&intro=0`);
    await waitForHook(page);
    await page.waitForFunction(() => Array.from(document.querySelectorAll<HTMLOptionElement>('#blue-team option')).some((o) => o.text === 'llm (not configured)'));
    await page.selectOption('#blue-team', 'llm');
    const help = page.locator('#blue-llm-help');
    expect(await help.isVisible()).toBe(true);
    expect(await help.innerText()).toBe('No language model on this server.\nHow to set one up');
    expect(await help.locator('a').getAttribute('href')).toBe('README.md#the-llm-strategist');
    const lines = await help.evaluate((node) => Math.round(node.getBoundingClientRect().height / Number.parseFloat(getComputedStyle(node).lineHeight)));
    expect(lines).toBe(2);
    expect(await page.locator('#match-panel').innerText()).not.toMatch(/OPENAI_BASE_URL|Ollama|llama\.cpp/);
    // Another team: the help goes.
    await page.selectOption('#blue-team', 'bt-scripted');
    expect(await help.isVisible()).toBe(false);
    await page.close();
  });

  it('plays the trained teams (bt over RL skills vs flat) through the TypeScript network, downloading no ONNX engine', async () => {
    const page = await open('?renderer=canvas&intro=0');
    await page.selectOption('#blue-team', 'bt');
    await page.selectOption('#red-team', 'flat');
    await page.click('#start');
    await page.waitForFunction(() => window.__hillmind!.state().mode === 'live' && window.__hillmind!.state().tick > 100, null, { timeout: 30_000 });
    expect(await page.locator('#error').isVisible()).toBe(false);
    expect(await page.locator('#agents-panel').innerText()).toMatch(/Navigate|Combat|Secure|Retreat/);
    // Everything the page fetched since it opened (resource timing), the models included.
    const fetched = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname));
    expect(fetched.filter((p) => p.endsWith('.onnx')).length, fetched.join(', ')).toBeGreaterThanOrEqual(5);
    expect(fetched.filter((p) => /\.wasm$|ort-wasm/.test(p)), 'an ONNX engine was downloaded').toEqual([]);
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

  it('ends a match with an overlay: the result, the score, Play again on the next seed', async () => {
    const page = await open('?renderer=canvas&intro=0&blue=bt-scripted&red=heuristic&seed=1&speed=8&autostart=1');
    await page.waitForFunction(() => window.__hillmind!.state().done, undefined, { timeout: 30_000 });
    const overlay = page.locator('#result-overlay');
    await overlay.waitFor({ state: 'visible' });
    const end = await state(page);
    expect(await page.locator('#result-headline').innerText()).toBe(end.outcome === 'draw' ? 'Draw' : `${end.outcome === 'blue' ? 'Blue' : 'Red'} wins`);
    expect(await page.locator('#result-score').innerText()).toMatch(/^Blue \d+\.\d s – \d+\.\d s Red · eliminations \d+ – \d+$/);
    expect(await page.locator('#result-detail').innerText()).toMatch(/bt-scripted vs heuristic/);
    await page.screenshot({ path: join(ARTIFACTS, 'browser-result-overlay.png') });
    await page.click('#play-again');
    // Same teams, the next seed, a fresh match under way, the overlay gone.
    await page.waitForFunction(() => {
      const s = window.__hillmind!.state();
      return s.mode === 'live' && !s.done && s.tick > 0;
    });
    expect(await overlay.isVisible()).toBe(false);
    expect(await page.inputValue('#seed')).toBe('2');
    expect(await page.locator('#scoreboard').innerText()).toMatch(/Blue · bt-scripted[\s\S]*Red · heuristic/);
    await page.close();
  });

  it('tells a person "You won" or "You lost", and saves the replay from the overlay', async () => {
    const page = await open('?renderer=canvas&intro=0&blue=human&teammate=bt-scripted&red=heuristic&seed=4&speed=8&autostart=1');
    await page.waitForFunction(() => window.__hillmind!.state().done, undefined, { timeout: 40_000 });
    await page.locator('#result-overlay').waitFor({ state: 'visible' });
    const outcome = (await state(page)).outcome;
    const words = outcome === 'blue' ? 'You won' : outcome === 'red' ? 'You lost' : 'Draw';
    expect(await page.locator('#result-headline').innerText()).toBe(words);
    expect(await page.locator('#clock').innerText()).toBe(words);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#result-save-replay')]);
    const file = join(tmp, download.suggestedFilename());
    await download.saveAs(file);
    // The page records which agent the person played, so the AI teammate's actions are checked too.
    const saved = parseReplay(readFileSync(file, 'utf8'), file);
    expect(saved.people).toEqual({ blue: { agents: [0], teammate: 'bt-scripted' } });
    const verified = verifyReplay(saved);
    expect(verified.ok).toBe(true);
    expect(verified.sides.blue).toEqual({ checked: true, how: 'scripted skills', decisions: 'derived again' });
    await page.close();
  });

  it('counts 3-2-1 before a match with a person, holding the match at tick 0 and pausing with it', async () => {
    const page = await open('?renderer=canvas&intro=0&blue=human&teammate=bt-scripted&red=heuristic');
    // Note each change of the countdown with the tick it showed at.
    await page.evaluate(() => {
      const w = window as unknown as { seen: string[] };
      w.seen = [];
      const node = document.getElementById('countdown')!;
      new MutationObserver(() => {
        const text = node.hidden ? '' : node.textContent ?? '';
        const last = w.seen[w.seen.length - 1];
        if (text && last?.split('@')[0] !== text) w.seen.push(`${text}@${window.__hillmind!.state().tick}`);
      }).observe(node, { childList: true, characterData: true, subtree: true, attributes: true });
    });
    await page.click('#start');
    await page.waitForFunction(() => document.getElementById('countdown')?.textContent === '2');
    await page.screenshot({ path: join(ARTIFACTS, 'browser-countdown.png') });
    // Paused, the countdown waits: the same time left over many display frames.
    await page.keyboard.press('KeyP');
    const held = (await state(page)).countdownMs;
    await page.evaluate(() => new Promise<void>((done) => {
      let left = 20;
      const next = () => (--left <= 0 ? done() : requestAnimationFrame(next));
      requestAnimationFrame(next);
    }));
    expect((await state(page)).countdownMs).toBe(held);
    expect((await state(page)).tick).toBe(0);
    await page.keyboard.press('KeyP');
    await page.waitForFunction(() => window.__hillmind!.state().tick > 5);
    const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
    expect(seen.map((s) => s.split('@')[0])).toEqual(['3', '2', '1', 'Go']);
    expect(seen.every((s) => s.endsWith('@0'))).toBe(true);
    await page.close();
  });

  it('keeps the choices beside the arena at 1024x640, and the scoreboard, arena and strategists in view once started', async () => {
    const page = await open('?renderer=canvas&intro=1&blue=human&teammate=bt-scripted&red=heuristic');
    await page.setViewportSize({ width: 1024, height: 640 });
    const box = async (selector: string) => (await page.locator(selector).boundingBox())!;
    const [start, arena] = [await box('#start'), await box('#arena')];
    expect(start.x + start.width).toBeLessThan(arena.x); // beside it, not below
    await page.screenshot({ path: join(ARTIFACTS, 'layout-1024x640-before.png') });
    await page.click('#start');
    await page.waitForFunction(() => {
      const board = document.getElementById('scoreboard')!.getBoundingClientRect();
      const arena = document.getElementById('arena')!.getBoundingClientRect();
      const strategists = document.getElementById('strategist-panel')!.getBoundingClientRect();
      return board.top >= 0 && arena.bottom <= window.innerHeight && strategists.bottom <= window.innerHeight && window.__hillmind!.state().mode === 'live';
    });
    await page.screenshot({ path: join(ARTIFACTS, 'layout-1024x640-playing.png') });
    // Keys that would scroll the page do nothing to it while a person plays.
    const scrolled = await page.evaluate(() => window.scrollY);
    for (const key of ['ArrowDown', 'PageDown', 'Space', 'End', 'ArrowUp']) await page.keyboard.press(key);
    expect(await page.evaluate(() => window.scrollY)).toBe(scrolled);
    await page.close();
  });

  it('plays team variants: persona options in the pickers, a variant from the address by its canonical name', async () => {
    const page = await open('?renderer=canvas&intro=0&blue=bt-scripted:reaction=0.5:persona=hesitant&red=random:period=1&autostart=1');
    await page.waitForFunction(() => window.__hillmind!.state().mode === 'live' && window.__hillmind!.state().tick > 10);
    expect(await page.inputValue('#blue-team')).toBe('bt-scripted:persona=hesitant:reaction=0.5');
    expect(await page.inputValue('#red-team')).toBe('random:period=1');
    const personas = await page.locator('#red-team optgroup[label="bt-scripted personas"] option').allTextContents();
    expect(personas).toContain('bt-scripted · cautious');
    expect(await page.locator('#blue-info').innerText()).toMatch(/Persona hesitant:/);
    await page.selectOption('#red-team', 'bt-scripted:persona=aggressive');
    await page.click('#start');
    await page.waitForFunction(() => window.__hillmind!.state().mode === 'live' && window.__hillmind!.state().tick > 10);
    const replay = JSON.parse((await page.evaluate(() => window.__hillmind!.replayText()))!) as { teams: { blue: string; red: string } };
    expect(replay.teams).toEqual({ blue: 'bt-scripted:persona=hesitant:reaction=0.5', red: 'bt-scripted:persona=aggressive' });
    await page.close();
  });

  it('says which address values and which seed it cannot use, instead of quietly changing them', async () => {
    const page = await open('?renderer=canvas&intro=0&blue=nonsense&speed=99&seed=-5&autostart=1');
    const banner = page.locator('#error');
    await banner.waitFor({ state: 'visible' });
    const text = await banner.innerText();
    expect(text).toMatch(/blue=nonsense is not a team/);
    expect(text).toMatch(/speed must be one of 0\.5, 1, 2, 4, 8; '99' is not/);
    expect(text).toMatch(/seed must be a whole number from 0 to 4294967295; '-5' is not/);
    expect(text).toMatch(/The match was not started/);
    expect((await state(page)).mode).toBe('idle');
    await page.click('#error button');
    for (const typed of ['2.5', '-5']) {
      await page.fill('#seed', typed);
      await page.locator('#seed').blur();
      expect(await page.inputValue('#seed')).toBe(typed); // kept as typed
      expect(await page.locator('#seed-problem').innerText()).toContain(`'${typed}' is not`);
      expect(await page.locator('#start').isDisabled()).toBe(true);
    }
    await page.screenshot({ path: join(ARTIFACTS, 'browser-bad-seed.png') });
    await page.fill('#seed', '42');
    expect(await page.locator('#seed-problem').isVisible()).toBe(false);
    await page.click('#start');
    await page.waitForFunction(() => window.__hillmind!.state().tick > 0);
    expect(await page.evaluate(() => window.__hillmind!.state().hash)).not.toBeNull();
    await page.close();
  });

  it('sends the bundle compressed, with caching headers', async () => {
    const page = await browser!.context.newPage();
    const seen = new Map<string, Record<string, string>>();
    page.on('response', (r) => {
      const name = new URL(r.url()).pathname;
      if (/\/assets\/.+\.(js|wasm)$/.test(name) || name === '/') seen.set(name, r.headers());
    });
    await page.goto(`${server!.url}/?renderer=canvas&intro=0&blue=bt&red=flat&autostart=1`);
    await waitForHook(page);
    await page.waitForFunction(() => window.__hillmind!.state().tick > 10, undefined, { timeout: 30_000 });
    const scripts = [...seen].filter(([name]) => name.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    for (const [name, headers] of scripts) {
      expect(headers['content-encoding'], name).toBe('br');
      expect(headers.vary, name).toBe('Accept-Encoding');
      expect(headers['cache-control'], name).toBe('public, max-age=31536000, immutable');
    }
    const pageHeaders = seen.get('/')!;
    expect([pageHeaders['content-encoding'], pageHeaders['cache-control']]).toEqual(['br', 'no-cache']);
    expect(pageHeaders.etag).toMatch(/^W\//);
    writeFileSync(join(ARTIFACTS, 'compression-headers.json'), JSON.stringify(Object.fromEntries(seen), null, 2));
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
    // The setup panel shows the replay's matchup, not the page's earlier choice (heuristic for red).
    expect([await page.inputValue('#blue-team'), await page.inputValue('#red-team'), await page.inputValue('#seed')]).toEqual(['bt-scripted', 'random', '12']);
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
