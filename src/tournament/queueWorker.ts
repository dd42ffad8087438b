/**
 * A queue worker: plays the jobs of the tournaments listed in the registry, on a pool of
 * threads, with this process's own models and language model (its server, keys and threads).
 *
 * For each tournament it first checks it can play it as the manifest says: every team can
 * play here, and the code version and the code, config, model and language-model fingerprints
 * equal the manifest's. When they differ it refuses the tournament, names each difference (here and
 * to the coordinator) and takes none of its jobs. Otherwise it opens a BullMQ worker on the
 * tournament's queue. A job whose worker dies (kill -9, a lost network) goes back to the
 * queue when its lock expires (BullMQ's stalled-job check, run by every live worker).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { RedisConnection, UnrecoverableError, Worker } from 'bullmq';
import { z } from 'zod';
import { isLlmSilentMessage } from '../llm';
import type { NodePlatform } from '../teams/nodePlatform';
import { type EpisodeJob, type JobResult, MAX_STALLED, QUEUE_PREFIX, REGISTRY_KEY, type RegistryEntry, episodeJobSchema, queueName, refusalsKey } from './jobs';
import { type Manifest, codeVersion, fingerprints, manifestDifferences, manifestSchema } from './manifest';
import { episodePool } from './pool';
import { checkTeams } from './preflight';
import { type RedisAddress, probeRedis } from './redis';

/** BullMQ's lock: how long a silent worker keeps its jobs before another takes them. */
export const DEFAULT_LOCK_SECONDS = 30;

export interface QueueWorkerOptions {
  readonly redis: RedisAddress;
  /**
   * This process's platform (models, language model): tournaments are checked against it,
   * and each thread builds its own from its spec. The caller closes it.
   */
  readonly platform: NodePlatform;
  readonly threads: number;
  /** Jobs in progress at once, per tournament. */
  readonly concurrency: number;
  /** Lock duration; the stalled-job check runs every half of it. */
  readonly lockMs: number;
  /** Shown in the coordinator's shares and stored on each job it plays. */
  readonly name: string;
  /** Serve this tournament only, without the registry (a coordinator's own threads). */
  readonly tournament?: string;
  /** How often the registry is read for tournaments started or finished. */
  readonly pollMs?: number;
  readonly onEvent?: (message: string) => void;
}

export interface QueueWorker {
  /** Episodes played by this worker so far. */
  played(): number;
  /** Stop taking jobs, let those in progress finish, and disconnect. */
  close(): Promise<void>;
}

const registryEntrySchema = z.object({ queue: z.string().min(1).max(300), manifest: manifestSchema });

function readEntry(text: string): RegistryEntry | string {
  try {
    const parsed = registryEntrySchema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data as RegistryEntry;
    return parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  } catch (err) {
    return (err as Error).message;
  }
}

/** Why this worker cannot play the tournament as its manifest says, or null when it can. */
async function refusal(manifest: Manifest, platform: NodePlatform): Promise<string | null> {
  try {
    await checkTeams(manifest.settings.teams, platform);
  } catch (err) {
    return (err as Error).message;
  }
  const here = { code: { version: codeVersion() }, fingerprints: await fingerprints(manifest.settings.teams, platform) };
  const differences = manifestDifferences(manifest, here);
  return differences.length ? differences.join('; ') : null;
}

/** The same message at most once a minute (a lost Redis repeats its error on every retry). */
function throttled(report: (message: string) => void): (message: string) => void {
  const last = new Map<string, number>();
  return (message) => {
    const now = Date.now();
    if (now - (last.get(message) ?? -Infinity) < 60_000) return;
    last.set(message, now);
    report(message);
  };
}

export async function startQueueWorker(options: QueueWorkerOptions): Promise<QueueWorker> {
  const report = options.onEvent ?? (() => {});
  const reportError = throttled(report);
  await probeRedis(options.redis);
  const pool = episodePool(options.threads, Math.max(4, Math.ceil(options.concurrency / options.threads)), options.platform.spec);
  /** Tournaments served or refused, with the registry entry read (a refused one is read again when it changes). */
  const serving = new Map<string, { worker: Worker<EpisodeJob, JobResult> | null; played: number; teams: string; entry: string }>();
  let played = 0;

  const serve = (id: string, teams: string, entry: string) => {
    const state = { worker: null as Worker<EpisodeJob, JobResult> | null, played: 0, teams, entry };
    state.worker = new Worker<EpisodeJob, JobResult>(
      queueName(id),
      async (job) => {
        const parsed = episodeJobSchema.safeParse(job.data);
        if (!parsed.success || parsed.data.tournament !== id) throw new UnrecoverableError(`job ${job.id} is not a job of tournament ${id}`);
        const records = await Promise.all(parsed.data.episodes.map((episode) => pool.play(episode))).catch((err: unknown) => {
          // A model gone silent fails the job at once: another attempt would only wait out the same timeouts.
          const message = err instanceof Error ? err.message : String(err);
          throw isLlmSilentMessage(message) ? new UnrecoverableError(message) : err;
        });
        state.played += records.length;
        played += records.length;
        return { worker: options.name, records };
      },
      {
        connection: options.redis.options,
        prefix: QUEUE_PREFIX,
        name: options.name,
        concurrency: options.concurrency,
        lockDuration: options.lockMs,
        stalledInterval: Math.max(250, Math.round(options.lockMs / 2)),
        maxStalledCount: MAX_STALLED,
        drainDelay: 2,
      },
    );
    // BullMQ reads a job's data before the processor sees it: data that is not JSON fails there, unnamed.
    state.worker.on('error', (err) =>
      reportError(`queue of tournament ${id}: ${err instanceof SyntaxError ? `a job's data is not JSON (${err.message}); its coordinator writes it back` : err.message}`),
    );
    state.worker.on('failed', (job, err) => job && report(`episodes ${job.id} failed here (attempt ${job.attemptsMade}): ${err.message}`));
    serving.set(id, state);
  };

  if (options.tournament) {
    serve(options.tournament, '', '');
    return {
      played: () => played,
      async close() {
        await serving.get(options.tournament!)!.worker!.close();
        await pool.close();
      },
    };
  }

  const { platform } = options;
  const connection = new RedisConnection(options.redis.options, { shared: false, blocking: false });
  connection.on('error', (err: Error) => reportError(`Redis at ${options.redis.shown}: ${err.message}`));
  const client = await connection.client;

  const join = async (id: string, text: string) => {
    const entry = readEntry(text);
    const reason = typeof entry === 'string' ? `its registry entry is unreadable: ${entry}` : await refusal(entry.manifest, platform);
    const teams = typeof entry === 'string' ? '?' : entry.manifest.settings.teams.join(', ');
    if (reason) {
      serving.set(id, { worker: null, played: 0, teams, entry: text });
      await client.hset(refusalsKey(id), { [options.name]: reason });
      report(`refused tournament ${id} (${teams}): ${reason}`);
      return;
    }
    serve(id, teams, text);
    report(`joined tournament ${id} (${teams})`);
  };

  const sync = async () => {
    const entries = await client.hgetall(REGISTRY_KEY);
    for (const [id, text] of Object.entries(entries)) {
      const state = serving.get(id);
      if (!state || (!state.worker && state.entry !== text)) await join(id, text);
    }
    for (const [id, state] of serving) {
      if (id in entries) continue;
      serving.delete(id);
      if (state.worker) {
        await state.worker.close();
        report(`tournament ${id} (${state.teams}) is over: played ${state.played} episodes of it here`);
      }
    }
  };

  const stop = new AbortController();
  const loop = (async () => {
    while (!stop.signal.aborted) {
      try {
        await sync();
      } catch (err) {
        reportError(`reading the tournaments at ${options.redis.shown}: ${(err as Error).message}`);
      }
      await sleep(options.pollMs ?? 250, undefined, { signal: stop.signal }).catch(() => {});
    }
  })();

  return {
    played: () => played,
    async close() {
      stop.abort();
      await loop;
      await Promise.all([...serving.values()].map((s) => s.worker?.close()));
      await pool.close();
      await connection.close();
    },
  };
}
