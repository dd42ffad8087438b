/**
 * `npm run match` with an llm team, as users run it, against the OpenAI-compatible test
 * server: --llm-timing, --llm-cache, the counters in the summary, an offline repeat from
 * the decision cache.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { parseReplay, verifyReplay } from '../../src/match';
import { FakeOpenAiServer } from './fakeOpenAiServer';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'hillmind-llm-cli-'));
let fake: FakeOpenAiServer;

beforeAll(async () => {
  fake = await FakeOpenAiServer.start();
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

function cli(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OPENAI_') && !k.startsWith('LLM_') && !k.startsWith('HILLMIND_LLM_')));
  return new Promise((done) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/match.ts', ...args], { cwd: ROOT, timeout: 30_000, env: { ...clean, ...env } }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

describe.concurrent('npm run match with an llm team', () => {
  it('plays, prints the counters, and repeats offline from the decision cache', async ({ expect }) => {
    const cacheDir = join(dir, 'cache');
    const env = { OPENAI_BASE_URL: fake.url, LLM_MODEL: 'fake-gemma', LLM_CACHE_DIR: cacheDir };
    const replay = join(dir, 'llm.json');
    const first = await cli(env, '--blue', 'llm', '--red', 'bt-scripted', '--seed', '3', '--llm-timing', 'ticks:5', '--llm-cache', 'use', '--replay', replay);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    // The model and who serves it, then the counters.
    const counters = /llm blue: fake-gemma via openai-compatible http:\/\/127\.0\.0\.1:\d+\/v1\n\s+(\d+) requests \(periodic \d+.*\), (\d+) calls, (\d+) cache hits, (\d+) valid answers/.exec(first.stdout);
    expect(counters).not.toBeNull();
    const [, requests, calls, hits, valid] = counters!.map(Number);
    expect(calls! + hits!).toBe(requests);
    // A call still out when the match ended is abandoned: it may have been aborted before it reached the server.
    const abandoned = Number(/abandoned (\d+)/.exec(first.stdout)![1]);
    expect(fake.calls.length).toBeLessThanOrEqual(calls!);
    expect(fake.calls.length).toBeGreaterThanOrEqual(calls! - abandoned);
    expect(first.stdout).toMatch(/failures: 0; .*\n\s+latency p50 \d+ ms, p95 \d+ ms over \d+ calls; tokens: prompt \d+, completion \d+/);
    const file = parseReplay(readFileSync(replay, 'utf8'));
    expect(verifyReplay(file).ok).toBe(true);
    expect(file.decisions.some((d) => d.source === 'llm')).toBe(true);

    // No server at all now: the cache answers every decision, the match is the same.
    const offline = await cli({ ...env, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }, '--blue', 'llm', '--red', 'bt-scripted', '--seed', '3', '--llm-timing', 'ticks:5', '--json');
    expect(offline.code).toBe(0);
    const summary = JSON.parse(offline.stdout) as { hash: string; llm: { blue: { model: string; provider: string; calls: number; cacheHits: number; failed: number } } };
    expect(summary.llm.blue).toMatchObject({ model: 'fake-gemma', provider: 'openai-compatible http://127.0.0.1:9/v1' });
    // Every answer the first run got is served from the cache; only a request the first run
    // left unanswered when the match ended (if any) goes out again, and it ends the same way.
    expect(summary.llm.blue).toMatchObject({ cacheHits: valid, calls: requests! - valid!, failed: 0 });
    expect(summary.hash).toBe(file.finalHash);
  });

  it('refuses bad --llm-timing and --llm-cache values with usage; without a server or a pulled model, says how to get one', async ({ expect }) => {
    const noModels = { HILLMIND_LLM_DIR: join(dir, 'no-models') };
    const [timing, cache, bare] = await Promise.all([
      cli({}, '--blue', 'llm', '--red', 'heuristic', '--llm-timing', 'soon'),
      cli({}, '--blue', 'llm', '--red', 'heuristic', '--llm-cache', 'maybe'),
      cli(noModels, '--blue', 'llm', '--red', 'heuristic'),
    ]);
    expect(timing.code).toBe(2);
    expect(timing.stderr).toMatch(/--llm-timing must be realtime, ticks:N \(N >= 0 ticks of delay\) or lockstep, got 'soon'/);
    expect(cache.code).toBe(2);
    expect(cache.stderr).toMatch(/--llm-cache must be one of use, refresh, off, got 'maybe'/);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toMatch(/^error: team 'llm' is not available: the local model gemma3-270m is not pulled yet, .*no-models\/gemma-3-270m-q4_k_m-strategist\.gguf .*\(run npm run llm:pull\)/);
    expect(bare.stderr).toContain('npm run llm:pull fetches it (or set HILLMIND_LLM_GGUF=<path to a .gguf file>)');
    expect(bare.stderr).toContain('OPENAI_BASE_URL=http://localhost:11434/v1 LLM_MODEL=gemma3:27b');
  });
});
