/**
 * A lockstep tournament against a model server that never answers stops after the first
 * episode's strategist gives up (3 timeouts in a row; a server silent from the start is
 * refused before any episode, by the pre-flight probe), naming the server, keeping its
 * records and saying how to resume; resumed once the server answers, it plays every
 * episode once. Before, every episode played to its end, each call waiting out its timeout:
 * at the default 60 s, days for a tournament. The fake server hangs; a 50 ms timeout keeps
 * the test short. Calls are counted, never timed.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodePlatform, readPlatformSpec } from '../../src/teams/nodePlatform';
import { redisServerPath, startLocalRedis } from '../../src/tournament/localRedis';
import { LOCK_FILE } from '../../src/tournament/lock';
import { parseRedisAddress } from '../../src/tournament/redis';
import { readRecords } from '../../src/tournament/records';
import { runTournament } from '../../src/tournament/run';
import { FakeOpenAiServer } from '../llm/fakeOpenAiServer';

let fake: FakeOpenAiServer;
const root = mkdtempSync(join(tmpdir(), 'hillmind-silent-model-'));
beforeAll(async () => {
  fake = await FakeOpenAiServer.start();
});
afterAll(async () => {
  await fake?.close();
  rmSync(root, { recursive: true, force: true });
});

const SETTINGS = { teams: ['heuristic', 'llm'], episodes: 6, seed: 1 };
const ENV = { OPENAI_API_KEY: 'sk-test', LLM_MODEL: 'fake-gemma', LLM_TIMING: 'lockstep', LLM_TIMEOUT_MS: '50', LLM_CACHE: 'off', LLM_SKILLS: 'scripted' };

/** The fake server answers the tournament's pre-flight probe, then falls silent. */
function silentAfterProbe() {
  fake.calls.length = 0;
  fake.behaviour = (index) => (index === 0 ? { kind: 'answer' } : { kind: 'hang' });
}

describe('a lockstep tournament against a model server that never answers', () => {
  it('stops naming the server, keeps its records and says how to resume; resumed, it plays every episode once', async () => {
    silentAfterProbe();
    const out = join(root, 'local');
    const platform = nodePlatform(readPlatformSpec({ ...ENV, OPENAI_BASE_URL: fake.url }));
    let resumedPlatform: ReturnType<typeof nodePlatform> | null = null;
    try {
      const run = runTournament({ settings: SETTINGS, platform, out, workers: 1, resume: false, llmConcurrency: 2 });
      await expect(run).rejects.toThrow(
        new RegExp(
          `^an episode could not be played: the language model fake-gemma \\(openai-compatible ${fake.url.replace(/\./g, '\\.')}\\) did not answer 3 calls in a row, each given 50 ms, .*` +
            `The tournament stopped; the 0 of 6 episodes recorded are kept in ${join(out, 'episodes.jsonl')}: once the cause is mended, run the same command with --resume to play the rest\\.$`,
        ),
      );
      // The probe, then two episodes in flight (llmConcurrency 2), each given up after 3 calls; none of the other four started.
      expect(fake.calls.length).toBeLessThanOrEqual(1 + 2 * 3);
      expect(existsSync(join(out, LOCK_FILE))).toBe(false);

      // Resumed as the message says, the timeout raised (a busy machine can miss 50 ms): the
      // handling of silence is not part of the manifest, so the resume is not refused.
      fake.behaviour = { kind: 'answer' };
      resumedPlatform = nodePlatform(readPlatformSpec({ ...ENV, OPENAI_BASE_URL: fake.url, LLM_TIMEOUT_MS: '30000' }));
      const resumed = await runTournament({ settings: SETTINGS, platform: resumedPlatform, out, workers: 1, resume: true, llmConcurrency: 2 });
      expect(resumed.played).toBe(6);
      const keys = readRecords(join(out, 'episodes.jsonl')).map((r) => r.key);
      expect(new Set(keys).size).toBe(6);
      expect(keys).toHaveLength(6);
    } finally {
      await platform.close();
      await resumedPlatform?.close();
    }
  });
});

const SERVER = redisServerPath(process.env);
describe.skipIf(!SERVER && process.env.CI !== 'true')('over a Redis queue', () => {
  it('the first job the silent model fails, with no retry, stops the run, naming it and saying to resume', async () => {
    if (!SERVER) throw new Error('CI=true but there is no redis-server: .ci/run installs it (apt-get install -y redis-server)');
    silentAfterProbe();
    const redis = await startLocalRedis(SERVER);
    const out = join(root, 'queue');
    const platform = nodePlatform(readPlatformSpec({ ...ENV, OPENAI_BASE_URL: fake.url }));
    try {
      // The coordinator's own thread takes the jobs (one episode each, a language model plays).
      const run = runTournament({ settings: SETTINGS, platform, out, workers: 1, resume: false, llmConcurrency: 2, queue: { redis: parseRedisAddress(redis.url) } });
      await expect(run).rejects.toThrow(
        /^episodes heuristic\|llm\|\d could not be played: the language model fake-gemma \(openai-compatible .*\) did not answer 3 calls in a row, .*The tournament stopped; the episodes recorded so far are kept: once the model answers again, run the same command with --resume\.$/,
      );
      // Each job at most once (a retry would wait out the same timeouts): the probe and at most 3 calls per job.
      expect(fake.calls.length).toBeLessThanOrEqual(1 + 6 * 3);
      expect(existsSync(join(out, LOCK_FILE))).toBe(false);
    } finally {
      await platform.close();
      await redis.stop();
    }
  });
});
