/**
 * One simulation, everywhere: seeded matches of every team pair played in Debian's
 * chromium (the built page, its models fetched and checked as the page does) and in Node,
 * compared by state hash at every tick; every replay the page saves verifies in Node,
 * and one goes through `npm run match -- --verify`.
 *
 * Before the simulation's math went through sim/detMath, chromium 156 and Node 20 disagreed
 * on the last bit of 3% of Math.sin results and 18% of Math.atan2 results, and two of six
 * replays saved from the page failed to verify.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReplay, verifyReplayWithModels } from '../../src/match';
import {
  type Browser,
  CHROMIUM_PATH,
  type ServerProcess,
  buildApp,
  chromiumAvailable,
  launchChromium,
  needsBuild,
  startServerProcess,
  waitForHook,
} from '../../src/bench/harness';
import { ModelLibrary } from '../../src/skills';
import { nodeModelSource } from '../../src/skills/nodeModels';
import { createPlatform } from '../../src/teams';
import {
  CROSS_ENGINE_TEAMS,
  type CrossEngineCase,
  type CrossEngineResult,
  RECORDED_PERSON_TEAMMATE,
  crossEngineCases,
  firstDivergence,
  playCrossEngineCase,
} from '../../src/web/crossEngine';

const inCi = /^(1|true)$/i.test(process.env.CI ?? '');
const haveChromium = chromiumAvailable();
if (!haveChromium && !inCi) console.warn(`cross-engine tests skipped: no chromium at ${CHROMIUM_PATH} (apt-get install chromium)`);
const suite = haveChromium || inCi ? describe : describe.skip;

/** Two rounds of every pair of the seven teams, mirrors included: 56 matches. */
const CASES = crossEngineCases(2);
/** Cases per page.evaluate, so no single call runs long. */
const CHUNK = 8;

suite('the same matches in chromium and in Node', () => {
  let server: ServerProcess | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let tmp: string;
  const platform = createPlatform({ models: new ModelLibrary(nodeModelSource('models')) });
  const inPage = new Map<CrossEngineCase, CrossEngineResult>();
  const inNode = new Map<CrossEngineCase, CrossEngineResult>();
  const problems: string[] = [];

  beforeAll(async () => {
    if (!haveChromium) throw new Error(`no chromium at ${CHROMIUM_PATH}: CI must install it (.ci/run does)`);
    tmp = mkdtempSync(join(tmpdir(), 'hillmind-cross-engine-'));
    if (needsBuild()) buildApp();
    server = await startServerProcess();
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
    await page.goto(`${server.url}/?renderer=canvas`);
    await waitForHook(page);
    for (let i = 0; i < CASES.length; i += CHUNK) {
      const chunk = CASES.slice(i, i + CHUNK);
      const results = await page.evaluate((cases) => window.__hillmind!.crossEngine(cases), chunk);
      results.forEach((r, j) => inPage.set(chunk[j]!, r));
    }
    for (const c of CASES) inNode.set(c, await playCrossEngineCase(c, platform));
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('covers every team on both sides in at least 50 matches', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(50);
    for (const team of CROSS_ENGINE_TEAMS) {
      expect(CASES.some((c) => c.blue === team), `${team} as blue`).toBe(true);
      expect(CASES.some((c) => c.red === team), `${team} as red`).toBe(true);
    }
    expect(problems).toEqual([]);
  });

  it('gives the same state hash at every tick of every match', () => {
    const diverged: string[] = [];
    let ticks = 0;
    for (const c of CASES) {
      const node = inNode.get(c)!;
      const web = inPage.get(c)!;
      ticks += node.hashes.length / 16;
      const d = firstDivergence(node, web);
      if (d) diverged.push(`${c.blue} vs ${c.red}, seed ${c.seed}: first differs at tick ${d.tick} (Node ${d.a}, chromium ${d.b})`);
    }
    expect(diverged).toEqual([]);
    // Whole matches were compared, not a few ticks.
    expect(ticks / CASES.length).toBeGreaterThan(500);
  });

  it('saves replays in the page that verify in Node, every decision and derived action included', async () => {
    const failed: string[] = [];
    for (const c of CASES) {
      const replay = parseReplay(inPage.get(c)!.replay, `${c.blue} vs ${c.red} seed ${c.seed}`);
      // The person's teammate is checked too: the file says which agent the person played.
      const people = {
        ...(c.blue === 'human' ? { blue: { agents: [0], teammate: RECORDED_PERSON_TEAMMATE } } : {}),
        ...(c.red === 'human' ? { red: { agents: [2], teammate: RECORDED_PERSON_TEAMMATE } } : {}),
      };
      const result = await verifyReplayWithModels(replay, { models: platform.models, people });
      if (!result.ok) failed.push(`${c.blue} vs ${c.red}, seed ${c.seed}: ${result.problems.join('; ')}`);
      for (const name of ['blue', 'red'] as const) {
        // Every AI side's actions were derived again; only recorded strategists' own choices are taken as given.
        if (c[name] !== 'human' && !result.sides[name].checked) failed.push(`${c.blue} vs ${c.red}, seed ${c.seed}: ${name} not checked (${result.sides[name].how})`);
      }
    }
    expect(failed).toEqual([]);
  });

  it('a replay saved from the page passes `npm run match -- --verify`', () => {
    const c = CASES.find((x) => x.blue === 'llm' && x.red === 'flat') ?? CASES[0]!;
    const file = join(tmp, 'page-replay.json');
    writeFileSync(file, inPage.get(c)!.replay);
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/match.ts', '--verify', file], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^replay verified: \d+ ticks/);
    expect(run.status).toBe(0);
  });
});
