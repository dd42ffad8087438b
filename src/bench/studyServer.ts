/**
 * The server (npm run bench, section "study-server"). Its requests per second, and its
 * thread's time per request, by kind of request: the health check, the study API reading
 * sqlite, a compressed script, a page revalidated (304), and a refusal of another origin's
 * page; the load comes from a worker thread (loadGenerator.ts), 8 keep-alive connections.
 *
 * The study server under a hostile participant: an 8 MiB episode whose action rows are all
 * out of range, sent to the server as `npm start` runs it (episodes checked on a worker
 * thread), and a 16 MiB replay file of such rows read
 * as `npm run match -- --verify` reads it. Before replays were bounded and episodes checked
 * off the main thread, the episode held the main thread 8-13 s with 2.1 GiB and the file
 * took 23-51 s with 3.4 GiB.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { parseReplay, runMatch } from '../match';
import type { BenchRow } from './match';
import { DEFAULT_CONFIG } from '../sim';
import { StudyStore, createStudy } from '../survey';
import type { Platform } from '../teams';
import type { NodePlatform } from '../teams/nodePlatform';
import { episodeCheckPool } from '../server/episodeChecks';
import { type LoadRequest, load } from './loadGenerator';
import { createAppServer, healthRoute, listen } from '../server/server';
import { studyRoutes } from '../server/studyRoutes';

/** A replay of `opponent` at `seed` on a 1 s episode, its action rows replaced by out-of-range ones up to about `bytes`. */
async function hostileReplay(platform: Platform, opponent: string, seed: number, bytes: number): Promise<string> {
  const match = await runMatch({ blue: 'heuristic', red: opponent, seed, config: { ...DEFAULT_CONFIG, episodeSeconds: 1 } }, { platform });
  const text = JSON.stringify({ ...match.replay(), teams: { blue: 'human', red: opponent }, actions: [] });
  const row = '[0,9,5,5,5,5,5]';
  const rows = Array<string>(Math.floor((bytes - text.length) / (row.length + 1))).fill(row).join(',');
  return text.replace('"actions":[]', `"actions":[${rows}]`);
}

/** Requests per second for each kind of request, `seconds` each after half a second of warm-up. */
export async function benchServerThroughput(platform: Platform, seconds: number): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'hillmind-bench-server-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), `<!doctype html><title>Hillmind</title>${'<p>arena</p>'.repeat(200)}`);
  const script = join(dir, 'assets', 'main-Ab12Cd34.js');
  writeFileSync(script, `export const words = [${'"arena", "zone", "agent", '.repeat(8000)}];\n`);
  // The compressed copies the build makes (vite.config.ts).
  for (const file of [script, join(dir, 'index.html')]) {
    const raw = readFileSync(file);
    writeFileSync(`${file}.br`, brotliCompressSync(raw));
    writeFileSync(`${file}.gz`, gzipSync(raw));
  }
  const store = StudyStore.open(':memory:');
  await createStudy(store, { id: 'bench', teams: ['heuristic', 'random'], episodesPerBlock: 1, episodeSeconds: 1 }, platform);
  const running = await listen(createAppServer({ root: dir, routes: [healthRoute(), studyRoutes({ root: dir, store, sessionsPerMinute: 1e9 })] }), 0);
  try {
    const etag = (await fetch(`${running.url}/`, { headers: { 'accept-encoding': 'gzip, br' } })).headers.get('etag') ?? '';
    const cases: [string, LoadRequest, number][] = [
      ['GET /api/health', { method: 'GET', path: '/api/health' }, 200],
      ['GET /api/study/<id> (sqlite)', { method: 'GET', path: '/api/study/bench' }, 200],
      ['GET a 200 KB script, brotli', { method: 'GET', path: '/assets/main-Ab12Cd34.js', headers: { 'accept-encoding': 'gzip, br' } }, 200],
      ['GET / revalidated', { method: 'GET', path: '/', headers: { 'accept-encoding': 'gzip, br', 'if-none-match': etag } }, 304],
      ['POST /api/study/<id>/session, another origin', { method: 'POST', path: '/api/study/bench/session', headers: { 'content-type': 'application/json', origin: 'https://evil.example' }, body: '{"consent":true}' }, 403],
    ];
    const rows: BenchRow[] = [];
    for (const [name, request, expected] of cases) {
      await load(running.url, request, 500);
      const before = performance.eventLoopUtilization();
      const figures = await load(running.url, request, seconds * 1000);
      // The server's thread's busy time per answer: less swayed than requests/s by what else runs on the machine.
      const busyMs = performance.eventLoopUtilization(before).active;
      const answered = Object.values(figures.statuses).reduce((n, c) => n + c, 0);
      if (Object.keys(figures.statuses).some((status) => Number(status) !== expected)) throw new Error(`${name}: expected only ${expected}s, got ${JSON.stringify(figures.statuses)}`);
      rows.push(
        { name: `server: ${name} (${expected})`, value: figures.perSecond, unit: 'requests/s' },
        { name: `server: ${name}: thread per request`, value: (busyMs * 1000) / Math.max(1, answered), unit: 'µs' },
      );
    }
    return rows;
  } finally {
    await running.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchStudyServer(platform: NodePlatform, seconds = 3): Promise<BenchRow[]> {
  const throughput = await benchServerThroughput(platform, seconds);
  const dir = mkdtempSync(join(tmpdir(), 'hillmind-bench-study-'));
  let t = Date.parse('2026-01-01T00:00:00Z');
  const store = StudyStore.open(join(dir, 'studies.sqlite'), { now: () => new Date(t) });
  const checker = episodeCheckPool({ spec: platform.spec });
  const running = await listen(createAppServer({ root: dir, routes: [studyRoutes({ root: dir, store, checker })] }), 0);
  try {
    await createStudy(store, { id: 'bench', teams: ['bt-scripted', 'heuristic', 'random'], episodesPerBlock: 1, episodeSeconds: 1, practice: { opponent: 'heuristic', episodeSeconds: 1 } }, platform);
    const post = async (path: string, body: string, token?: string) => {
      const res = await fetch(`${running.url}/api/study/bench${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { 'x-study-token': token } : {}) }, body });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const token = (await post('/session', JSON.stringify({ consent: true }))).body.token as string;
    await post('/instructions', '{}', token);
    const step = ((await post('/practice/skip', '{}', token)).body.state as { step: { block: number; episode: number; seed: number; opponent: string } }).step;
    await post('/attempts', JSON.stringify({ block: step.block, episode: step.episode }), token);
    t += 5_000;
    const replay = await hostileReplay(platform, step.opponent, step.seed, 8 * 1024 * 1024 - 4096);
    const body = `{"block":${step.block},"episode":${step.episode},"replay":${replay}}`;
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const rss = process.memoryUsage().rss;
    const started = performance.now();
    const answer = await post('/episodes', body, token);
    const answerMs = performance.now() - started;
    delay.disable();
    if (answer.status !== 400) throw new Error(`the hostile episode got ${answer.status}: ${JSON.stringify(answer.body)}`);
    const rssGrowth = (process.memoryUsage().rss - rss) / 2 ** 20;

    const file = await hostileReplay(platform, 'random', 1, 16 * 1024 * 1024);
    const heap = process.memoryUsage().heapUsed;
    const read = performance.now();
    try {
      parseReplay(file, 'the hostile file');
      throw new Error('the hostile 16 MiB replay was read');
    } catch (err) {
      if (!/action rows/.test((err as Error).message)) throw err;
    }
    const readMs = performance.now() - read;
    const heapGrowth = (process.memoryUsage().heapUsed - heap) / 2 ** 20;
    return [
      ...throughput,
      { name: 'hostile 8 MiB episode, refused: answer', value: answerMs, unit: 'ms', target: 2000, lowerIsBetter: true },
      { name: 'hostile 8 MiB episode: main thread held (max event-loop delay)', value: delay.max / 1e6, unit: 'ms', target: 100, lowerIsBetter: true },
      { name: 'hostile 8 MiB episode: server memory growth', value: rssGrowth, unit: 'MiB' },
      { name: 'hostile 16 MiB replay file, refused (parseReplay)', value: readMs, unit: 'ms', target: 2000, lowerIsBetter: true },
      { name: 'hostile 16 MiB replay file: heap growth', value: heapGrowth, unit: 'MiB' },
    ];
  } finally {
    await running.close();
    await checker.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
