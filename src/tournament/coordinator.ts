/**
 * The coordinator of a tournament played over a queue: it registers the tournament (so
 * workers find it and check its manifest), adds a job for every planned episode not yet
 * recorded, and collects finished jobs into the records until every episode is recorded or
 * its job has failed for good.
 *
 * Exactly once in the records: a record is appended only for a planned episode not yet in
 * episodes.jsonl (so a retried job's duplicate is dropped), and a finished job is removed
 * from Redis only after its records are appended. A killed coordinator loses nothing: on
 * --resume it adds the same jobs again (BullMQ keeps one job per id, so those waiting,
 * running or finished are not added twice) and collects those that finished meanwhile.
 *
 * A Redis that lost its data (restarted without persistence, or before its first
 * snapshot; a FLUSHALL) is noticed by the tournament's registry entry being gone: the
 * coordinator registers the tournament again, so workers find it, and adds every job not
 * yet recorded at once. A Redis that does not answer for `silenceMs` ends the run with an
 * error naming it, the records so far kept for --resume.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { isLlmSilentMessage } from '../llm';
import type { NodePlatform } from '../teams/nodePlatform';
import {
  type EpisodeJob,
  JOB_ATTEMPTS,
  type PlannedJob,
  QUEUE_PREFIX,
  REGISTRY_KEY,
  RETRY_DELAY_MS,
  jobResultSchema,
  planJobs,
  queueName,
  refusalsKey,
} from './jobs';
import { sameEpisode } from './existing';
import { type Manifest, tournamentId } from './manifest';
import type { PlannedEpisode } from './plan';
import { type QueueWorker, startQueueWorker } from './queueWorker';
import type { EpisodeRecord } from './records';
import { type RedisAddress, probeRedis } from './redis';
import { countOf } from '../sim';

export interface CoordinatorOptions {
  readonly redis: RedisAddress;
  /** The tournament's manifest as written in its directory. */
  readonly manifest: Manifest;
  readonly plan: readonly PlannedEpisode[];
  /** Keys of the planned episodes already in episodes.jsonl. */
  readonly recorded: ReadonlySet<string>;
  readonly episodesPerJob: number;
  /** Appends a record (called once per planned episode, never for one already recorded). */
  readonly append: (record: EpisodeRecord) => void;
  /** Threads on this machine that take jobs too (none: only remote workers play). */
  readonly local?: { readonly threads: number; readonly concurrency: number; readonly platform: NodePlatform; readonly name: string };
  /** Lock of the local threads' jobs (see QueueWorkerOptions.lockMs). */
  readonly lockMs: number;
  readonly pollMs?: number;
  /** How long Redis may go unanswering before the run ends with an error; default 60 s. */
  readonly silenceMs?: number;
  /** Clock in ms (tests); default performance.now. */
  readonly now?: () => number;
  readonly onProgress?: (progress: QueueProgress) => void;
  readonly onEvent?: (message: string) => void;
}

export interface QueueProgress {
  /** Planned episodes recorded, this run's and earlier ones. */
  readonly done: number;
  readonly total: number;
  /** Episodes collected in this run, by worker name. */
  readonly shares: Readonly<Record<string, number>>;
}

export interface FailedJob {
  readonly id: string;
  readonly episodes: number;
  readonly attempts: number;
  readonly error: string;
}

export interface QueueOutcome {
  readonly collected: number;
  readonly shares: Readonly<Record<string, number>>;
  /** Jobs finished by another worker after theirs went silent (BullMQ's stalled-job check). */
  readonly retriedAfterStall: readonly string[];
  readonly failed: readonly FailedJob[];
  /** Workers that refused the tournament, with their reasons. */
  readonly refusals: Readonly<Record<string, string>>;
}

/** Re-adding every unfinished job now and then restores any that Redis lost (adding an existing id is a no-op). */
const RECONCILE_MS = 10_000;

/**
 * How long Redis may not answer before the coordinator gives up: a restart takes seconds,
 * and BullMQ's client reconnects at most 20 s apart, so a minute spans several tries.
 */
export const DEFAULT_SILENCE_MS = 60_000;

/** Redis has not answered for too long: the run ends, its records kept. */
export class RedisSilent extends Error {
  constructor(shown: string, seconds: number, lastError: string) {
    super(
      `Redis at ${shown} has not answered for ${seconds} s${lastError ? ` (last error: ${lastError})` : ''}. ` +
        'The episodes recorded so far are kept: start Redis again and run the same command with --resume.',
    );
    this.name = 'RedisSilent';
  }
}

/** `promise`, or a rejection once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${Math.round(ms)} ms`)), Math.max(0, ms))));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}


/** What a damaged value in Redis holds, for a message: not JSON, or other JSON (its start). */
function damage(text: string): string {
  const shown = JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}...` : text);
  try {
    JSON.parse(text);
    return `other data (${shown})`;
  } catch {
    return `data that is not JSON (${shown})`;
  }
}

export async function coordinate(options: CoordinatorOptions): Promise<QueueOutcome> {
  const report = options.onEvent ?? (() => {});
  await probeRedis(options.redis);
  const id = tournamentId(options.manifest);
  const queue = new Queue<EpisodeJob>(queueName(id), { connection: options.redis.options, prefix: QUEUE_PREFIX, streams: { events: { maxLen: 1000 } } });
  let lastError = '';
  queue.on('error', (err) => {
    if (err.message !== lastError) report(`Redis at ${options.redis.shown}: ${err.message}`);
    lastError = err.message;
  });
  const client = await queue.client;

  const planned = new Map(options.plan.map((e) => [e.key, e]));
  const done = new Set(options.recorded);
  const outstanding = new Map<string, PlannedJob>();
  for (const job of planJobs(options.plan, options.episodesPerJob)) if (job.episodes.some((e) => !done.has(e.key))) outstanding.set(job.id, job);
  const shares: Record<string, number> = {};
  const retriedAfterStall: string[] = [];
  const failed = new Map<string, FailedJob>();
  const refusals: Record<string, string> = {};
  let collected = 0;
  /** Why the run must end now, before every job is done or failed. */
  let stopped: Error | null = null;

  const jobData = (job: PlannedJob): EpisodeJob => ({ tournament: id, episodes: job.episodes });
  const enqueue = async (jobs: readonly PlannedJob[]) => {
    for (let i = 0; i < jobs.length; i += 1000) {
      await queue.addBulk(
        jobs.slice(i, i + 1000).map((job) => ({
          name: 'episodes',
          data: jobData(job),
          opts: { jobId: job.id, attempts: JOB_ATTEMPTS, backoff: { type: 'fixed', delay: RETRY_DELAY_MS }, removeOnComplete: false, removeOnFail: false },
        })),
      );
    }
  };

  const progress = () => options.onProgress?.({ done: done.size, total: planned.size, shares: { ...shares } });

  /** Append the records of finished jobs, then remove those jobs. Returns how many jobs it read. */
  const collect = async (): Promise<number> => {
    const jobs = await queue.getJobs(['completed'], 0, 199, true);
    for (const job of jobs) {
      const result = jobResultSchema.safeParse(job.returnvalue);
      if (!result.success) {
        report(`job ${job.id} came back unreadable (${result.error.issues[0]?.message}); it will be played again`);
      } else {
        const { worker } = result.data;
        // Validated, then kept as the worker wrote it (the schema's output reorders keys).
        for (const record of (job.returnvalue as { records: EpisodeRecord[] }).records) {
          const episode = planned.get(record.key);
          if (!episode || done.has(record.key)) continue; // not planned, or a duplicate from a retry
          if (!sameEpisode(episode, record)) {
            report(`job ${job.id} returned ${record.key} with other seed or sides than planned; it will be played again`);
            continue;
          }
          options.append(record);
          done.add(record.key);
          shares[worker] = (shares[worker] ?? 0) + 1;
          collected++;
        }
        if (job.stalledCounter > 0 && job.id) {
          retriedAfterStall.push(job.id);
          report(`episodes ${job.id}: their worker went silent, so ${worker} played them again`);
        }
      }
      await job.remove();
    }
    for (const [jobId, job] of outstanding) if (job.episodes.every((e) => done.has(e.key))) outstanding.delete(jobId);
    // A job removed with episodes still missing (unreadable, incomplete) is added again.
    const missing = jobs.map((j) => outstanding.get(j.id ?? '')).filter((j): j is PlannedJob => j !== undefined);
    if (missing.length) await enqueue(missing);
    return jobs.length;
  };

  const checkFailures = async () => {
    for (const job of await queue.getJobs(['failed'], 0, -1)) {
      const planned = outstanding.get(job.id ?? '');
      if (!planned || failed.has(planned.id)) continue;
      const failure = { id: planned.id, episodes: planned.episodes.length, attempts: job.attemptsMade, error: job.failedReason ?? 'unknown error' };
      failed.set(planned.id, failure);
      report(`episodes ${failure.id} failed after ${countOf(failure.attempts, 'attempt')}: ${failure.error}`);
      // Every other job would wait out the same timeouts: the run stops at the first.
      if (isLlmSilentMessage(failure.error)) {
        stopped ??= new Error(
          `episodes ${failure.id} could not be played: ${failure.error.replace(/\.+$/, '')}. The tournament stopped; the episodes recorded so far are kept: ` +
            'once the model answers again, run the same command with --resume.',
        );
      }
    }
    for (const [worker, reason] of Object.entries(await client.hgetall(refusalsKey(id)))) {
      if (refusals[worker] === reason) continue;
      refusals[worker] = reason;
      report(`worker ${worker} refused this tournament: ${reason}`);
    }
  };

  /**
   * This tournament's jobs in Redis whose data is not what was planned (not JSON, or other
   * episodes): no worker can play them (BullMQ cannot even read them, and a worker takes the
   * job again and again), and the coordinator cannot read their results. Those that workers
   * take or finish (active, completed, failed) are checked each round and written back as
   * planned, said aloud with the job and its Redis key.
   */
  const repairDamagedJobs = async (): Promise<void> => {
    const [active, completed, failedIds] = await Promise.all([
      client.lrange(queue.toKey('active'), 0, -1),
      client.zrange(queue.toKey('completed'), 0, 199),
      client.zrange(queue.toKey('failed'), 0, -1),
    ]);
    const ours = [...new Set([...active, ...completed, ...failedIds])].filter((jobId) => outstanding.has(jobId));
    if (!ours.length) return;
    const texts = await Promise.all(ours.map((jobId) => client.hget(queue.toKey(jobId), 'data')));
    for (const [i, jobId] of ours.entries()) {
      const found = texts[i];
      const planned = JSON.stringify(jobData(outstanding.get(jobId)!));
      if (found === undefined || found === null || found === planned) continue;
      await client.hset(queue.toKey(jobId), { data: planned });
      report(`job ${jobId} (Redis key ${queue.toKey(jobId)}) held ${damage(found)} where its episodes were expected (JSON {tournament, episodes}): wrote the planned episodes back`);
    }
  };

  const registryText = JSON.stringify({ queue: queueName(id), manifest: options.manifest });
  const register = () => client.hset(REGISTRY_KEY, { [id]: registryText });

  /**
   * The registry entry is written once and removed only by this coordinator at the end: when
   * it is gone, Redis lost its data. Register again and re-add every job not yet recorded.
   * An entry that is not the one written (not JSON, another manifest) leaves workers unable
   * to join: it is written again, said aloud with its key, and workers that refused it read it anew.
   */
  const restoreIfLost = async (): Promise<void> => {
    const entry = await client.hget(REGISTRY_KEY, id);
    if (entry === registryText) return;
    if (entry !== null) {
      await register();
      report(`the registry entry ${id} in Redis key ${REGISTRY_KEY} held ${damage(entry)} where this tournament's JSON {queue, manifest} was expected: wrote it again`);
      return;
    }
    await register();
    const jobs = [...outstanding.values()].filter((job) => !failed.has(job.id));
    await enqueue(jobs);
    report(`Redis at ${options.redis.shown} lost this tournament (restarted without its data?): registered it again and re-added ${countOf(jobs.length, 'job')}`);
  };

  await register();
  // Jobs that failed before a --resume get their attempts again.
  for (const job of await queue.getJobs(['failed'], 0, -1)) {
    if (outstanding.has(job.id ?? '')) await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
  }
  await enqueue([...outstanding.values()]);
  progress();

  let local: QueueWorker | null = null;
  let finished = false;
  try {
    if (options.local) {
      local = await startQueueWorker({
        redis: options.redis,
        platform: options.local.platform,
        threads: options.local.threads,
        concurrency: options.local.concurrency,
        lockMs: options.lockMs,
        name: options.local.name,
        tournament: id,
        onEvent: report,
      });
    }
    const now = options.now ?? (() => performance.now());
    const silenceMs = options.silenceMs ?? DEFAULT_SILENCE_MS;
    let reconciled = now();
    /** When Redis last answered a whole round. */
    let answered = now();
    const round = async (): Promise<number> => {
      await repairDamagedJobs();
      const read = await collect();
      if (read > 0) progress();
      await checkFailures();
      await restoreIfLost();
      if (now() - reconciled > RECONCILE_MS) {
        reconciled = now();
        await enqueue([...outstanding.values()].filter((job) => !failed.has(job.id)));
      }
      return read;
    };
    while ([...outstanding.keys()].some((jobId) => !failed.has(jobId))) {
      let read = 0;
      try {
        // A round that hangs on a silent Redis is cut off when the silence has lasted too long.
        read = await within(round(), silenceMs - (now() - answered));
        answered = now();
      } catch (err) {
        if (now() - answered >= silenceMs) throw new RedisSilent(options.redis.shown, Math.round(silenceMs / 1000), lastError || (err as Error).message);
        // A passing failure (a connection lost mid-command): the next round tries again.
      }
      if (stopped) throw stopped;
      if (read === 0) await sleep(options.pollMs ?? 200);
    }
    finished = true;
  } finally {
    // Redis may be gone when the run failed: then the queue's connection is dropped at once
    // (waiting for its 'end', as queue.disconnect() does, never ends while it reconnects).
    if (!finished) (await queue.client).disconnect();
    await local?.close();
    if (finished) {
      // Done with the tournament: nothing of it is left in Redis, and workers let it go.
      await client.hdel(REGISTRY_KEY, id);
      await client.del(refusalsKey(id));
      await queue.obliterate({ force: true });
      await queue.close();
    }
  }
  return { collected, shares, retriedAfterStall, failed: [...failed.values()], refusals };
}
