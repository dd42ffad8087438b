/**
 * Damaged data in the queue's Redis (src/tournament/coordinator.ts, queueWorker.ts): a job
 * whose data is not JSON, and a registry entry that is not JSON. Either used to leave the
 * run waiting forever, the job taken and dropped again and again by every worker, the
 * tournament refused by every worker. Now the coordinator names the job or the key, writes
 * the planned value back, and the run ends with every episode recorded.
 *
 * A real redis-server on a free loopback port, a worker in this process (one thread, a 2 s
 * lock). Skipped, with a message, only off CI when redis-server is missing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { QUEUE_PREFIX, REGISTRY_KEY, queueName } from '../../src/tournament/jobs';
import { type LocalRedis, redisServerPath, startLocalRedis } from '../../src/tournament/localRedis';
import { tournamentId } from '../../src/tournament/manifest';
import { type QueueWorker, startQueueWorker } from '../../src/tournament/queueWorker';
import { readRecords } from '../../src/tournament/records';
import { parseRedisAddress } from '../../src/tournament/redis';
import { runTournament } from '../../src/tournament/run';
import { nodeTestPlatform } from '../helpers/platform';
import { tempDirs } from '../helpers/tempDirs';

const SERVER = redisServerPath(process.env);
const CI = process.env.CI === 'true';
if (!SERVER && !CI) console.warn('skipping the queue data tests: no redis-server here (apt-get install -y redis-server, or set REDIS_SERVER)');

const SETTINGS = { teams: ['bt-scripted', 'heuristic'], episodes: 2, seed: 4 };
const JOB = 'bt-scripted|heuristic|0-1';

const freshDir = tempDirs('queue-data');

/** Resolves with `promise`, or rejects naming `what` if it has not settled when `limitMs` pass: a hang fails the test instead of stalling it. */
function unlessHung<T>(what: string, promise: Promise<T>, limitMs = 90_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} never ended`)), limitMs)));
  return Promise.race([promise, hung]).finally(() => clearTimeout(timer));
}

async function waitFor<T>(what: string, probe: () => T | Promise<T>): Promise<NonNullable<T>> {
  return unlessHung(
    `waiting for ${what}`,
    (async () => {
      for (;;) {
        const value = await probe();
        if (value) return value as NonNullable<T>;
        await new Promise((r) => setTimeout(r, 20));
      }
    })(),
  );
}

describe.skipIf(!SERVER && !CI)('damaged data in the queue', () => {
  let redis: LocalRedis | undefined;
  let worker: QueueWorker | undefined;
  let queue: Queue | undefined;
  afterEach(async () => {
    await worker?.close();
    await queue?.close();
    await redis?.stop();
  });

  /** A coordinator on a fresh Redis, with its queue once the jobs are in it; no worker yet. */
  async function coordinatorWaiting() {
    if (!SERVER) throw new Error('CI=true but there is no redis-server: .ci/run installs it (apt-get install -y redis-server)');
    redis = await startLocalRedis(SERVER);
    const address = parseRedisAddress(redis.url);
    const out = freshDir();
    const events: string[] = [];
    const run = runTournament({ settings: SETTINGS, platform: nodeTestPlatform(), out, workers: 0, resume: false, queue: { redis: address, episodesPerJob: 2, onEvent: (m) => events.push(m) } });
    run.catch(() => {});
    const manifest = join(out, 'manifest.json');
    await waitFor('the manifest', () => existsSync(manifest) && readFileSync(manifest, 'utf8').endsWith('\n'));
    const id = tournamentId(JSON.parse(readFileSync(manifest, 'utf8')));
    queue = new Queue(queueName(id), { connection: address.options, prefix: QUEUE_PREFIX });
    const client = await queue.client;
    await waitFor('the job', () => client.hexists(queue!.toKey(JOB), 'data'));
    const startWorker = async () => {
      worker = await startQueueWorker({ redis: address, platform: nodeTestPlatform(), threads: 1, concurrency: 1, lockMs: 2000, name: 'w', pollMs: 100 });
    };
    return { id, out, run, events, client, startWorker };
  }

  it('a job whose data is not JSON is named with its Redis key and written back as planned; every episode is played', { timeout: 180_000 }, async () => {
    const { out, run, events, client, startWorker } = await coordinatorWaiting();
    const key = queue!.toKey(JOB);
    await client.hset(key, { data: 'not json {' });
    await startWorker();
    const result = await unlessHung('the run', run);
    expect(events).toContain(
      `job ${JOB} (Redis key ${key}) held data that is not JSON ("not json {") where its episodes were expected (JSON {tournament, episodes}): wrote the planned episodes back`,
    );
    expect(result.records.map((r) => r.key)).toEqual(['bt-scripted|heuristic|0', 'bt-scripted|heuristic|1']);
    expect(readRecords(join(out, 'episodes.jsonl'))).toHaveLength(2);
  });

  it('a registry entry that is not JSON is named with its key and written again; workers that refused it join; every episode is played', { timeout: 180_000 }, async () => {
    const { id, run, events, client, startWorker } = await coordinatorWaiting();
    await client.hset(REGISTRY_KEY, { [id]: 'not json {' });
    await startWorker();
    const result = await unlessHung('the run', run);
    expect(events).toContain(
      `the registry entry ${id} in Redis key ${REGISTRY_KEY} held data that is not JSON ("not json {") where this tournament's JSON {queue, manifest} was expected: wrote it again`,
    );
    expect(result.records).toHaveLength(2);
  });
});
