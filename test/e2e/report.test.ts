/**
 * The tournament report as a researcher opens it: a 3-team tournament's report.html in
 * Debian's chromium, every plot (Vega-Lite SVG) loaded with its axes and legend, the
 * ratings finite, and a screenshot kept in test-artifacts/ for a person to look at.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, CHROMIUM_PATH, chromiumAvailable, launchChromium } from '../../src/bench/harness';

const inCi = /^(1|true)$/i.test(process.env.CI ?? '');
const haveChromium = chromiumAvailable();
if (!haveChromium && !inCi) console.warn(`report browser test skipped: no chromium at ${CHROMIUM_PATH}`);
const suite = haveChromium || inCi ? describe : describe.skip;

suite('the tournament report in a real browser', () => {
  let browser: Browser | undefined;
  let out: string;

  beforeAll(async () => {
    if (!haveChromium) throw new Error(`no chromium at ${CHROMIUM_PATH}: CI must install it (.ci/run does)`);
    out = join(mkdtempSync(join(tmpdir(), 'hillmind-report-')), 't3');
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/tournament.ts', '--teams', 'bt-scripted,heuristic,random', '--episodes', '12', '--workers', '1', '--out', out], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`the tournament failed: ${run.stderr}`);
    browser = await launchChromium();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    if (out) rmSync(resolve(out, '..'), { recursive: true, force: true });
  });

  it('shows every plot, with axes and a legend, and finite ratings', async () => {
    const page = await browser!.context.newPage();
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.goto(`file://${resolve(out, 'report.html')}`);
    const images = await page.$$eval('img', (imgs) => imgs.map((i) => ({ src: i.getAttribute('src'), width: (i as HTMLImageElement).naturalWidth })));
    expect(images.length).toBeGreaterThanOrEqual(3);
    for (const image of images) expect(image.width, `${image.src} loads`).toBeGreaterThan(100);
    for (const image of images) {
      const svg = readFileSync(join(out, image.src!), 'utf8');
      expect(svg, `${image.src} has axes`).toMatch(/class="[^"]*\bmark-group role-axis/);
    }
    const text = await page.locator('body').innerText();
    expect(text).toMatch(/Ratings/);
    expect(text).not.toMatch(/-?inf\b/i);
    mkdirSync('test-artifacts', { recursive: true });
    await page.screenshot({ path: 'test-artifacts/tournament-report.png', fullPage: true });
    await page.close();
  });
});
