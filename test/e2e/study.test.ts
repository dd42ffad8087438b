/**
 * A user study in a real browser: a scripted participant completes a short study (one
 * short episode per block) in headless chromium, reloading the page in the middle of an
 * episode (the restart is recorded with the attempt it replaced); the opponent is drawn
 * and named in its neutral badge colour; the rows land in SQLite; the CLI's export and
 * analysis give the expected counts; the admin page shows progress and the Likert
 * summary with free text escaped; a study without restarts skips an episode that was
 * left; an observer watches a clip and judges who played it. Like the other browser
 * tests, this fails in CI (CI=true) without chromium and is skipped elsewhere.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReplay, verifyReplay } from '../../src/match';
import { type Browser, CHROMIUM_PATH, chromiumAvailable, collectPageProblems, freePort, launchChromium } from '../../src/bench/harness';
import { TEAM_COLOURS } from '../../src/survey/config';
import { PAD, PX_PER_M } from '../../src/web/layout';

const inCi = /^(1|true)$/i.test(process.env.CI ?? '');
const haveChromium = chromiumAvailable();
if (!haveChromium && !inCi) console.warn(`study browser test skipped: no chromium at ${CHROMIUM_PATH} (apt-get install chromium)`);
const suite = haveChromium || inCi ? describe : describe.skip;

const STUDY_ID = 'e2e-study';
const CONFIG = {
  id: STUDY_ID,
  title: 'E2E study',
  teams: ['bt-scripted', 'heuristic', 'random'],
  episodesPerBlock: 1,
  episodeSeconds: 2,
  teammate: 'bt-scripted',
  practice: { opponent: 'heuristic', episodeSeconds: 2 },
  completion: { code: 'E2E-DONE-42' },
};
const XSS = '<img src=x onerror="window.__pwned=1">';
const REASON = 'They <b>peeked</b> & "used" pickups';

function cli(args: string[], env: Record<string, string>): { stdout: string; stderr: string; status: number | null } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/survey.ts', ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

suite('a user study in a real browser', () => {
  let tmp: string;
  let db: string;
  let dist: string;
  let server: ChildProcess | undefined;
  let url = '';
  let adminToken = '';
  let browser: Browser | undefined;
  const problems: string[] = [];

  beforeAll(async () => {
    if (!haveChromium) throw new Error(`no chromium at ${CHROMIUM_PATH}: CI must install it (.ci/run does)`);
    tmp = mkdtempSync(join(tmpdir(), 'hillmind-study-e2e-'));
    db = join(tmp, 'studies.sqlite');
    dist = join(tmp, 'dist');
    // A build of our own, so this file never races another test's dist/.
    // Without VITEST in its environment, so the build is the one `npm start` makes (with /models/).
    const env = { ...process.env };
    delete env.VITEST;
    const build = spawnSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn', '--outDir', dist, '--emptyOutDir'], { encoding: 'utf8', env });
    if (build.status !== 0) throw new Error(`vite build failed:\n${build.stdout}\n${build.stderr}`);
    writeFileSync(join(tmp, 'config.json'), JSON.stringify(CONFIG));
    const created = cli(['create', '--config', join(tmp, 'config.json'), '--db', db, '--base-url', 'http://test'], {});
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toContain(`http://test/study/${STUDY_ID}`);
    adminToken = /Admin token:\s+(\S+)/.exec(created.stdout)![1]!;

    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    let output = '';
    server = spawn(process.execPath, ['--import', 'tsx', resolve('src/cli/serve.ts')], {
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', HILLMIND_DIST: dist, HILLMIND_STUDY_DB: db },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    server.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (server.exitCode !== null) throw new Error(`the server exited:\n${output}`);
      try {
        if ((await fetch(`${url}/api/health`)).ok) break;
      } catch {
        // not yet listening
      }
      if (Date.now() > deadline) throw new Error(`the server did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (server && server.exitCode === null) {
      const exited = new Promise((done) => server!.once('exit', done));
      server.kill('SIGTERM');
      await exited;
    }
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  async function open(path: string): Promise<Page> {
    const page = await browser!.context.newPage();
    collectPageProblems(page, problems);
    await page.goto(`${url}${path}`);
    return page;
  }

  const waitStep = (page: Page, kind: string, timeout = 15_000) =>
    page.waitForFunction((k) => window.__hillmindStudy?.step() === k, kind, { timeout });

  /** Start the episode on screen and wait for its countdown to end (the match under way). */
  async function startEpisode(page: Page): Promise<void> {
    await page.click('#episode-start');
    await page.waitForFunction(() => {
      const s = window.__hillmind?.state();
      return s?.mode === 'live' && s.countdownMs === 0 && s.tick > 0;
    });
  }

  /** Start the episode on screen, move until the agent has moved, and wait for its result to be saved. */
  async function playEpisode(page: Page): Promise<void> {
    await startEpisode(page);
    const x0 = await page.evaluate(() => window.__hillmind!.state().agents[0]!.x);
    await page.keyboard.down('KeyD');
    await page.waitForFunction((x) => (window.__hillmind!.state().agents[0]?.x ?? x) > x + 0.2 || window.__hillmind!.state().done, x0);
    await page.keyboard.up('KeyD');
    await page.waitForSelector('#episode-outcome', { timeout: 15_000 });
    await page.waitForFunction(() => document.querySelector('#episode-saving')?.textContent === 'Saved.', undefined, { timeout: 10_000 });
    await page.click('#episode-next');
  }

  async function rate(page: Page, values: number[], text: string): Promise<void> {
    await waitStep(page, 'rate');
    const items = ['challenge', 'skill', 'coordination', 'enjoyment', 'humanlike'];
    // Submitting with a rating missing is refused in the page, naming the items not answered.
    await page.click('#ratings-submit');
    expect(await page.locator('#ratings-form .form-error').innerText()).toMatch(/every rating[\s\S]*challenging to play against[\s\S]*behaved like human players/);
    for (let i = 0; i < items.length - 1; i++) await page.check(`#likert-${items[i]}-${values[i]}`);
    await page.click('#ratings-submit');
    const oneLeft = await page.locator('#ratings-form .form-error').innerText();
    expect(oneLeft).toBe('Please answer every rating. Not answered yet: "This team\'s players behaved like human players.".');
    expect(await page.locator('#ratings-form fieldset.missing').getAttribute('data-item')).toBe('humanlike');
    await page.check(`#likert-${items[items.length - 1]}-${values[items.length - 1]}`);
    await page.fill('#open-behaviours', text);
    await page.click('#ratings-submit');
  }

  /** The bar's value, in percent. */
  const progressNow = async (page: Page) => Number(await page.locator('#study-bar').getAttribute('aria-valuenow'));

  /**
   * The colour drawn at the back of each opponent agent (behind its nose), read from the
   * canvas while the countdown holds every agent still at its spawn point.
   */
  const opponentPixels = (page: Page) =>
    page.evaluate(
      ({ pad, pxPerM }) => {
        const canvas = document.querySelector('#arena canvas') as HTMLCanvasElement;
        const ctx = canvas.getContext('2d')!;
        return window.__hillmind!.state().agents.filter((a) => a.team === 1).map((a) => {
          const x = Math.round(pad + (a.x - 0.25 * Math.cos(a.angle)) * pxPerM);
          const y = Math.round(pad + (a.y - 0.25 * Math.sin(a.angle)) * pxPerM);
          return Array.from(ctx.getImageData(x, y, 1, 1).data.slice(0, 3));
        });
      },
      { pad: PAD, pxPerM: PX_PER_M },
    );

  const rgb = (hex: string) => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));

  it('a participant completes the study, with a reload in the middle of an episode', async () => {
    const page = await open(`/study/${STUDY_ID}?renderer=canvas&PROLIFIC_PID=pid-e2e&STUDY_ID=prolific-study&SESSION_ID=sess-1`);
    await waitStep(page, 'consent');
    expect(await page.locator('#consent-text').innerText()).toMatch(/18 or older/);
    // The researcher's contact and the ethics approval, here still the defaults that say to fill them in.
    expect(await page.locator('#consent-contact').innerText()).toMatch(/^Not filled in yet: .*"contact" in the study config/);
    expect(await page.locator('#consent-ethics').innerText()).toMatch(/^Not filled in yet: .*"ethics" in the study config/);
    await page.click('#consent-agree');
    await waitStep(page, 'instructions');
    await page.click('#instructions-continue');

    await waitStep(page, 'practice');
    const atPractice = await progressNow(page);
    await playEpisode(page);

    // Block 1: the page names the opponent "Team 1", never its type.
    await waitStep(page, 'play');
    expect(await progressNow(page)).toBeGreaterThan(atPractice);
    expect(await page.locator('#study-card h1').innerText()).toMatch(/Block 1 of 3: Team 1/);
    const order = (await page.content()).match(/bt-scripted|heuristic|random/g) ?? [];
    expect(order).toEqual([]);
    // Neutral colours end to end: the opponent agents, its progress and every word on screen.
    await page.evaluate(() => {
      const w = window as unknown as { statusLines: string[] };
      w.statusLines = [];
      const status = document.getElementById('zone-status')!;
      new MutationObserver(() => w.statusLines.push(status.textContent ?? '')).observe(status, { childList: true, characterData: true, subtree: true });
    });
    await page.click('#episode-start');
    await page.waitForFunction(() => (window.__hillmind?.state().countdownMs ?? 0) > 0 && !window.__hillmind!.state().paused);
    // Two display frames, so the canvas shows the episode's palette.
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    await page.screenshot({ path: join('test-artifacts', 'study-play-countdown.png') });
    const team1 = rgb(TEAM_COLOURS[0]);
    for (const pixel of await opponentPixels(page)) {
      expect(Math.max(...pixel.map((v, i) => Math.abs(v - team1[i]!))), `drawn ${pixel}, badge ${team1}`).toBeLessThanOrEqual(16);
    }
    expect(await page.locator('#study-arena .sb-side.red .sb-fill').evaluate((e) => getComputedStyle(e).backgroundColor)).toBe(`rgb(${team1.join(', ')})`);
    expect(await page.locator('#controls-hint').innerText()).not.toMatch(/second person/i);
    await page.waitForFunction(() => (window.__hillmind?.state().tick ?? 0) > 0);
    await page.keyboard.down('KeyD');
    await page.waitForSelector('#episode-outcome', { timeout: 15_000 });
    await page.keyboard.up('KeyD');
    const words = await page.evaluate(() => [...(window as unknown as { statusLines: string[] }).statusLines, document.getElementById('study-arena')!.innerText].join('\n'));
    expect(words).not.toMatch(/\bRed\b/);
    expect(await page.locator('#episode-outcome').innerText()).toMatch(/^(You won|You lost|Draw)/);
    await page.waitForFunction(() => document.querySelector('#episode-saving')?.textContent === 'Saved.');
    await page.click('#episode-next');
    await rate(page, [4, 4, 3, 5, 2], XSS);

    // Block 2: reload half way through the episode; the session resumes at that episode,
    // and the server records the attempt that was left.
    await waitStep(page, 'play');
    await startEpisode(page);
    await page.waitForFunction(() => (window.__hillmind?.state().tick ?? 0) > 20);
    await page.reload();
    await waitStep(page, 'play');
    expect(await page.locator('#study-progress').innerText()).toBe('Block 2 of 3 · episode 1 of 1');
    expect(await page.locator('#study-card h1').innerText()).toMatch(/Block 2 of 3: Team 2/);
    // The page said how far it got as it unloaded; once that is in, the page says the episode restarts.
    const left = () => {
      const sql = new Database(db, { readonly: true });
      try {
        return sql.prepare("SELECT status, ticks FROM attempts WHERE block = 1 AND status = 'abandoned' AND ticks IS NOT NULL").all() as { status: string; ticks: number }[];
      } finally {
        sql.close();
      }
    };
    for (const until = Date.now() + 10_000; left().length === 0 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 100));
    expect(left()[0]!.ticks).toBeGreaterThan(20);
    await page.reload();
    await waitStep(page, 'play');
    expect(await page.locator('#episode-restart').innerText()).toMatch(/left before its end, so it starts again from the beginning\. If it is left again, it will not be played\./);
    await page.screenshot({ path: join('test-artifacts', 'study-restart-notice.png') });
    await playEpisode(page);
    expect(await page.locator('#opponent-name').textContent()).toBe('Team 2');
    await rate(page, [3, 3, 3, 3, 3], 'Rushed the zone.');

    await waitStep(page, 'play');
    await playEpisode(page);
    await rate(page, [2, 2, 1, 2, 1], '');

    await waitStep(page, 'choice');
    expect(await page.locator('#choice-form').innerText()).toMatch(/Team 1[\s\S]*Team 2[\s\S]*Team 3/);
    // "You played against these teams, in this order:" is followed by the teams, in the order played.
    expect(await page.locator('#choice-order li').allInnerTexts()).toEqual(['Team 1', 'Team 2', 'Team 3']);
    await page.check('#choice-Team-2');
    await page.fill('#choice-reason', REASON);
    await page.click('#choice-submit');

    await waitStep(page, 'background');
    await page.check('#bg-gaming-3');
    await page.check('#bg-team_games-1');
    await page.click('#background-submit');

    await waitStep(page, 'done');
    expect(await page.locator('#completion-code').innerText()).toBe('E2E-DONE-42');
    // Free text never ran as HTML.
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    // A reload at the end shows the end again.
    await page.reload();
    await waitStep(page, 'done');
    await page.screenshot({ path: join('test-artifacts', 'study-done.png') }).catch(() => undefined);
    await page.close();
    expect(problems).toEqual([]);
  });

  it('the rows are in SQLite as the participant left them', () => {
    const sql = new Database(db, { readonly: true });
    try {
      const participants = sql.prepare('SELECT * FROM participants').all() as Record<string, unknown>[];
      expect(participants).toHaveLength(1);
      const p = participants[0]!;
      expect(JSON.parse(String(p.external))).toEqual({ PROLIFIC_PID: 'pid-e2e', STUDY_ID: 'prolific-study', SESSION_ID: 'sess-1' });
      expect(p.completed_at).toBeTruthy();
      const order = (JSON.parse(String(p.plan)) as { order: string[] }).order;
      expect([...order].sort()).toEqual(['bt-scripted', 'heuristic', 'random']);

      // Every start is an attempt; the reload left one abandoned beside its restart.
      const attempts = sql.prepare('SELECT block, episode, attempt, status, ticks FROM attempts ORDER BY id').all() as Record<string, unknown>[];
      expect(attempts.map((a) => [a.block, a.attempt, a.status])).toEqual([
        [-1, 1, 'finished'],
        [0, 1, 'finished'],
        [1, 1, 'abandoned'],
        [1, 2, 'finished'],
        [2, 1, 'finished'],
      ]);
      expect(attempts[2]!.ticks).toBeGreaterThan(20);
      const episodes = sql.prepare('SELECT block, opponent, outcome, replay_ok, replay, human_agents FROM episodes ORDER BY id').all() as Record<string, unknown>[];
      expect(episodes.map((e) => e.block)).toEqual([-1, 0, 1, 2]);
      expect(episodes.map((e) => e.opponent)).toEqual(['heuristic', ...order]);
      expect(episodes.every((e) => e.replay_ok === 1 && e.human_agents === '[0]')).toBe(true);
      const replay = parseReplay(String(episodes[1]!.replay));
      expect(verifyReplay(replay).ok).toBe(true);
      // The participant's key presses are in the replay.
      expect(replay.actions.some((r) => r[1] === 0 && (r[2] !== 0 || r[4] !== 0))).toBe(true);

      const answers = sql.prepare('SELECT kind, item, block, team, label, value_num, value_text FROM answers ORDER BY id').all() as Record<string, unknown>[];
      expect(answers.filter((a) => a.kind === 'likert')).toHaveLength(15);
      expect(answers.filter((a) => a.kind === 'open').map((a) => a.value_text)).toEqual([XSS, 'Rushed the zone.', '']);
      const choice = answers.find((a) => a.kind === 'choice')!;
      expect(choice).toMatchObject({ label: 'Team 2', team: order[1], value_num: 2 });
      expect(answers.find((a) => a.kind === 'reason')!.value_text).toBe(REASON);
      expect(answers.filter((a) => a.kind === 'background').map((a) => a.value_text)).toEqual(['A few times a week', 'A little']);
      const humanlike = answers.filter((a) => a.kind === 'likert' && a.item === 'humanlike').map((a) => [a.block, a.value_num]);
      expect(humanlike).toEqual([[0, 2], [1, 3], [2, 1]]);
    } finally {
      sql.close();
    }
  });

  it('export and analyze give the expected counts', () => {
    const csvFile = join(tmp, 'answers.csv');
    const exported = cli(['export', '--study', STUDY_ID, '--format', 'csv', '--out', csvFile, '--db', db], {});
    expect(exported.status, exported.stderr).toBe(0);
    const csv = readFileSync(csvFile, 'utf8').trim().split('\r\n');
    expect(csv[0]).toBe('study,participant,block,block_position,team,label,kind,item,value,text,created_at');
    expect(csv).toHaveLength(1 + 22);
    expect(csv.some((line) => line.includes('"<img src=x onerror=""window.__pwned=1"">"'))).toBe(true);

    const jsonFile = join(tmp, 'study.json');
    expect(cli(['export', '--study', STUDY_ID, '--format', 'json', '--out', jsonFile], { HILLMIND_STUDY_DB: db }).status).toBe(0);
    const doc = JSON.parse(readFileSync(jsonFile, 'utf8')) as { participants: unknown[]; answers: unknown[]; episodes: unknown[] };
    expect([doc.participants.length, doc.answers.length, doc.episodes.length]).toEqual([1, 22, 4]);

    const out = join(tmp, 'analysis');
    const analyzed = cli(['analyze', '--db', db, '--study', STUDY_ID, '--out', out], {});
    expect(analyzed.status, analyzed.stderr).toBe(0);
    const analysis = JSON.parse(readFileSync(join(out, 'analysis.json'), 'utf8')) as {
      participants: { started: number; completed: number };
      forcedChoice: { n: number; counts: { team: string; count: number }[] };
      winRates: { team: string; episodes: number }[];
    };
    expect(analysis.participants).toEqual({ started: 1, completed: 1 });
    expect(analysis.forcedChoice.n).toBe(1);
    expect(analysis.forcedChoice.counts.reduce((s, c) => s + c.count, 0)).toBe(1);
    expect(analysis.winRates.map((w) => w.episodes)).toEqual([1, 1, 1]);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt;');
    expect(html).not.toContain(XSS);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toMatch(/Forced choice/);
  });

  it('the admin page shows progress behind the token, free text as text', async () => {
    const denied = await open(`/study/${STUDY_ID}/admin#token=wrong`);
    await denied.waitForSelector('#admin-error:not([hidden])');
    expect(await denied.locator('#admin-error').innerText()).toMatch(/not this study's admin token/);
    await denied.close();
    // The refused requests are logged by the browser as failed loads: expected here.
    problems.splice(0);

    const page = await open(`/study/${STUDY_ID}/admin#token=${adminToken}`);
    await page.waitForSelector('#admin-participants');
    expect(page.url()).not.toContain(adminToken);
    const counts = await page.locator('#admin-counts').innerText();
    expect(counts).toMatch(/1 started · 1 completed · 3 episodes · 1 restart · 0 not verified ·/);
    expect(counts).not.toMatch(/judgement/); // observers judge; a play study has none to count
    expect(await page.locator('#admin-summary').innerText()).toMatch(/ · 1 episode per block · /);
    // How often the server's decision cache answered the llm team (this study has none: nothing asked yet, or no model).
    expect(await page.locator('#admin-llm-cache').innerText()).toMatch(/^Decision cache(: no language model is configured\.| \(use\): no decision it could answer asked yet since the server started · 0 of 20000 answers kept\.)$/);
    // Episodes whose replay did not verify would be listed here, with why (every one the browser played verified).
    expect(await page.locator('#admin-unverified').innerText()).toMatch(/parted by tick\s+first problem/);
    // The Likert summary: mean / median per team for each item, and why there is no Friedman test yet.
    const likert = await page.locator('#admin-likert').innerText();
    expect(likert).toMatch(/humanlike/);
    expect(likert).toMatch(/bt-scripted: mean \/ median/);
    expect(likert.match(/\(n 1\)/g)).toHaveLength(15);
    expect(likert).toMatch(/held back: needs at least 3 people who rated every team, and there is 1: with fewer, no ratings could differ from chance at p < 0\.05/);
    // One participant's forced choice: no chi-square (it needs 5 expected per team) and no exact test, each with why.
    const tests = await page.locator('#admin-choice-tests').innerText();
    expect(tests).toMatch(/^n 1: no chi-square: it needs at least 15 participants \(5 expected per team\), and no exact test: with fewer than 4 participants/);
    expect(tests).not.toMatch(/chi-square \d|p 0\./);
    expect(await page.locator('#admin-participants').innerText()).toMatch(/restarts/);
    await page.screenshot({ path: join('test-artifacts', 'study-admin.png'), fullPage: true });
    expect(await page.locator('#admin-participants').innerText()).toMatch(/PROLIFIC_PID=pid-e2e/);
    const freeText = page.locator('#admin-free-text');
    expect(await freeText.innerText()).toContain(XSS);
    expect(await freeText.locator('img, b').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await page.close();
    expect(problems).toEqual([]);
  });

  it('with no restarts allowed, an episode left before its end is skipped, and the page says why', async () => {
    const config = join(tmp, 'strict.json');
    writeFileSync(config, JSON.stringify({ id: 'e2e-strict', teams: ['bt-scripted', 'heuristic'], episodesPerBlock: 1, episodeSeconds: 30, practice: { enabled: false }, restartsPerEpisode: 0 }));
    const created = cli(['create', '--config', config, '--db', db], {});
    expect(created.status, created.stderr).toBe(0);
    const page = await open('/study/e2e-strict?renderer=canvas');
    await waitStep(page, 'consent');
    await page.click('#consent-agree');
    await waitStep(page, 'instructions');
    await page.click('#instructions-continue');
    await waitStep(page, 'play');
    // In a small window the arena is sized to its height and scrolled into full view.
    await page.setViewportSize({ width: 1024, height: 640 });
    await startEpisode(page);
    await page.waitForFunction(() => {
      const box = document.getElementById('study-arena')!.getBoundingClientRect();
      return box.top >= 0 && box.bottom <= window.innerHeight;
    });
    await page.screenshot({ path: join('test-artifacts', 'study-1024x640.png') });
    await page.waitForFunction(() => (window.__hillmind?.state().tick ?? 0) > 20);
    await page.reload();
    // Whether the word from the unloading page came first or the next start finds the attempt open, the episode is skipped.
    await page.waitForFunction(() => ['play', 'rate'].includes(window.__hillmindStudy?.step() ?? ''));
    if ((await page.evaluate(() => window.__hillmindStudy!.step())) === 'play') await page.click('#episode-start');
    await waitStep(page, 'rate');
    expect(await page.locator('#study-notice').innerText()).toMatch(/Episode 1 of block 1 was left before its end, so it is not played again/);
    await page.screenshot({ path: join('test-artifacts', 'study-skipped-notice.png') });
    await page.close();
    expect(problems).toEqual([]);
    const sql = new Database(db, { readonly: true });
    try {
      const rows = sql.prepare("SELECT t.status FROM attempts t JOIN participants p ON p.id = t.participant_id WHERE p.study_id = 'e2e-strict'").all() as { status: string }[];
      expect(rows.map((r) => r.status)).toEqual(['abandoned']);
      expect(sql.prepare("SELECT COUNT(*) AS n FROM episodes WHERE study_id = 'e2e-strict'").get()).toEqual({ n: 0 });
    } finally {
      sql.close();
    }
  });

  it('an observer watches a recorded episode and judges each player', async () => {
    const config = join(tmp, 'observe.json');
    writeFileSync(config, JSON.stringify({ id: 'e2e-observe', kind: 'observe', teams: ['bt-scripted', 'heuristic'], episodeSeconds: 2, observe: { fromStudies: [STUDY_ID], clips: 1, botMatches: 1 } }));
    const created = cli(['create', '--config', config, '--db', db], {});
    expect(created.status, created.stderr).toBe(0);

    const page = await open('/study/e2e-observe?renderer=canvas');
    await waitStep(page, 'consent');
    // The consent text describes this study: one recording of a 2-second episode.
    expect(await page.locator('#consent-text').innerText()).toMatch(/watch one short recording of a top-down team game .* It takes about 3 minutes\./);
    await page.click('#consent-agree');
    await waitStep(page, 'instructions');
    await page.click('#instructions-continue');
    await waitStep(page, 'clip');
    await page.click('#clip-start');
    await page.waitForFunction(() => window.__hillmind?.state().mode === 'replay');
    // Nothing on screen names who played.
    expect(await page.locator('#scoreboard').innerText()).not.toMatch(/human|bt-scripted|heuristic|random/);
    await waitStep(page, 'judging');
    for (const agent of [0, 1, 2, 3]) await page.check(`#judge-${agent}-${agent === 0 ? 'human' : 'bot'}`);
    await page.click('#judge-submit');
    await waitStep(page, 'background');
    await page.check('#bg-gaming-0');
    await page.check('#bg-team_games-0');
    await page.click('#background-submit');
    await waitStep(page, 'done');
    await page.close();
    expect(problems).toEqual([]);

    const sql = new Database(db, { readonly: true });
    try {
      const rows = sql.prepare('SELECT agent, truth, judged_human FROM judgements ORDER BY agent').all() as { agent: number; truth: string; judged_human: number }[];
      expect(rows.map((r) => r.judged_human)).toEqual([1, 0, 0, 0]);
      expect(['human', 'bt-scripted', 'heuristic']).toContain(rows[0]!.truth);
    } finally {
      sql.close();
    }
    const out = join(tmp, 'observe-analysis');
    const analyzed = cli(['analyze', '--db', db, '--study', 'e2e-observe', '--out', out], {});
    expect(analyzed.status, analyzed.stderr).toBe(0);
    expect(analyzed.stdout).toMatch(/humanness/);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toMatch(/BotPrize 2012/);
  });
});
