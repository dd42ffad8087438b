/**
 * Drives the served product in a real browser (Debian's chromium through playwright-core):
 * build when needed, start the server as a child process on a free port, open the page,
 * read the page's window.__hillmind figures. Used by the browser tests and `npm run bench`.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import type { FrameSummary } from '../web/frameStats';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Launch options measured to work headless on a machine without a GPU. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM_PATH);
}

const SOURCES = ['src', 'index.html', 'assets', 'vite.config.ts', 'package.json'];

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  let newest = s.mtimeMs;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, name)));
  return newest;
}

/** True when dist/ is missing or older than any source the build reads. */
export function needsBuild(cwd = process.cwd()): boolean {
  const built = join(cwd, 'dist', 'index.html');
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  return SOURCES.some((p) => newestMtime(join(cwd, p)) > builtAt);
}

/** `vite build` into dist/ (throws with vite's output on failure). */
export function buildApp(cwd = process.cwd()): void {
  const result = spawnSync(process.execPath, [join(cwd, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`vite build failed:\n${result.stdout}\n${result.stderr}`);
}

export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

export interface ChildServerOptions {
  /** Node arguments (the script and its flags); run with this process's node. */
  readonly args: readonly string[];
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** The path that answers 200 once the server is ready. */
  readonly readyPath: string;
  /** Names the server in errors. */
  readonly name: string;
  readonly timeoutMs?: number;
  readonly port: number;
}

/** Start a server as a child process (so the PID we hold is the server's) and wait until it answers. */
export async function startChildServer(options: ChildServerOptions): Promise<ServerProcess> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const child: ChildProcess = spawn(process.execPath, [...options.args], {
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const url = `http://127.0.0.1:${options.port}`;
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 3000).unref();
    });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${options.name} exited (${child.exitCode}):\n${output}`);
    try {
      const res = await fetch(`${url}${options.readyPath}`);
      if (res.ok) return { url, pid: child.pid!, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`${options.name} did not answer within ${timeoutMs} ms:\n${output}`);
}

/** Start `node --import tsx src/cli/serve.ts` on a free port and wait for /api/health. */
export async function startServerProcess(cwd = process.cwd(), timeoutMs = 20_000): Promise<ServerProcess> {
  const port = await freePort();
  return startChildServer({
    args: ['--import', 'tsx', join(cwd, 'src/cli/serve.ts')],
    cwd,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' },
    readyPath: '/api/health',
    name: 'the server',
    timeoutMs,
    port,
  });
}

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Headless chromium with a throwaway profile. */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'hillmind-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1440, height: 900 },
    acceptDownloads: true,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Push every console error and uncaught exception of `page` onto `problems`, worded for a test's failure message. */
export function collectPageProblems(page: Page, problems: string[]): void {
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console.error: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
}

/** Wait until the page's hook is installed. */
export async function waitForHook(page: Page, timeoutMs = 15_000): Promise<void> {
  await page.waitForFunction(() => window.__hillmind?.ready === true, undefined, { timeout: timeoutMs });
}

export interface BrowserFrameFigure extends FrameSummary {
  readonly renderer: string;
  readonly seconds: number;
}

/**
 * Run a match at 1x in the page for `seconds` and read the time per display frame spent in
 * the simulation and controllers (performance.now in the page).
 */
export async function measureFrameTimes(baseUrl: string, seconds: number, blue = 'bt-scripted', red = 'heuristic'): Promise<BrowserFrameFigure> {
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    await page.goto(`${baseUrl}/?renderer=canvas&intro=0&speed=1&seed=1&blue=${blue}&red=${red}&autostart=1`);
    await waitForHook(page);
    await page.waitForFunction(() => window.__hillmind!.state().mode === 'live', undefined, { timeout: 15_000 });
    // Let the page settle (first frames compile code), then measure.
    await page.waitForTimeout(500);
    await page.evaluate(() => window.__hillmind!.resetFrameStats());
    await page.waitForTimeout(seconds * 1000);
    const stats = await page.evaluate(() => window.__hillmind!.frameStats());
    const renderer = await page.evaluate(() => window.__hillmind!.renderer);
    return { ...stats, renderer, seconds };
  } finally {
    await browser.close();
  }
}

/** Build if needed, serve, measure, stop. */
export async function benchBrowser(seconds: number, cwd = process.cwd()): Promise<BrowserFrameFigure> {
  if (!chromiumAvailable()) throw new Error(`no chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`);
  if (needsBuild(cwd)) buildApp(cwd);
  const server = await startServerProcess(resolve(cwd));
  try {
    return await measureFrameTimes(server.url, seconds);
  } finally {
    await server.stop();
  }
}
