/**
 * Running a tournament: check every team can play before the first episode, write the
 * manifest, play the planned episodes not yet recorded (on a pool of worker threads, or
 * through a Redis queue as its coordinator), append each record as it ends, and write the
 * reports.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { availableParallelism, hostname } from 'node:os';
import { join } from 'node:path';
import { serveChatClient } from '../llm/node/channel';
import { withEngineDefaults } from '../llm';
import type { NodePlatform, PlatformSpec } from '../teams/nodePlatform';
import { type QueueOutcome, coordinate } from './coordinator';
import { DEFAULT_EPISODES_PER_JOB } from './jobs';
import { checkExistingRecords, stampRecord } from './existing';
import { type LockEnvironment, lockTournament, tookOverMessage } from './lock';
import { type Manifest, buildManifest, checkResume, readManifest, tournamentId } from './manifest';
import { type PlannedEpisode, type TournamentSettings, planEpisodes } from './plan';
import { episodePool } from './pool';
import { checkTeams } from './preflight';
import { DEFAULT_LOCK_SECONDS } from './queueWorker';
import { type EpisodeRecord, RecordWriter, readRecords, writeWholeFile } from './records';
import { type RedisAddress, probeRedis } from './redis';
import { reportText, tournamentReportFiles } from './report';
import { type TournamentSummary, summarizeTournament } from './summary';
import { countOf } from '../sim';

/** Playing over a Redis queue (npm run tournament -- --queue redis://host:port). */
export interface QueueRunOptions {
  readonly redis: RedisAddress;
  /** Episodes per job (default 16; 1 when a team talks to a language model). */
  readonly episodesPerJob?: number;
  /** Lock of the jobs this machine's threads play (--workers with --queue). */
  readonly lockMs?: number;
  /** Refusals, failed jobs, jobs retried after their worker went silent, Redis errors. */
  readonly onEvent?: (message: string) => void;
  /** How long Redis may not answer before the run ends with an error (default 60 s). */
  readonly silenceMs?: number;
}

export interface RunOptions {
  readonly settings: TournamentSettings;
  /**
   * This process's platform (tournamentSpec gives its spec a language model's sizes): the
   * teams are checked and the manifest written on it, its local engine serves the worker
   * threads, and each thread builds its own from its spec. The caller closes it.
   */
  readonly platform: NodePlatform;
  readonly out: string;
  /** Threads on this machine (with a queue: threads that take jobs beside the remote workers; 0 for none). */
  readonly workers: number;
  readonly resume: boolean;
  /** Episodes played at once within a worker (so batched inference can group them). */
  readonly perWorker?: number;
  /** LLM episodes in flight at once across the tournament (they wait on the network, not a core). */
  readonly llmConcurrency?: number;
  /** The records so far (those resumed first), after each new one is written: a long run's interim report. */
  readonly onRecorded?: (records: readonly EpisodeRecord[]) => void;
  /** The episodes found recorded on disk (none in a new run), reported once before any is played. */
  readonly onResumed?: (done: number, total: number) => void;
  /**
   * After each episode played (with a queue: once the jobs are queued, then as finished jobs
   * come in); records found on disk come through onResumed. With a queue, `shares` counts the
   * episodes each worker played in this run.
   */
  readonly onProgress?: (done: number, total: number, shares?: Readonly<Record<string, number>>) => void;
  /** Play over a queue: this process coordinates, workers anywhere play. */
  readonly queue?: QueueRunOptions;
  /** Notices: a stale lock taken over, duplicate records dropped. */
  readonly onEvent?: (message: string) => void;
  /** Who takes the folder's lock (tests); default this process. */
  readonly lockAs?: LockEnvironment;
}

export interface RunResult {
  readonly records: readonly EpisodeRecord[];
  readonly summary: TournamentSummary;
  readonly played: number;
  readonly skipped: number;
  /** Records found twice in episodes.jsonl: each kept once, the others dropped from the summary. */
  readonly duplicatesDropped: number;
  /** How the queue went (workers' shares, retries, refusals), when one was used. */
  readonly queue?: QueueOutcome;
}

export function describeSettings(settings: TournamentSettings): string {
  return `teams ${settings.teams.join(', ')}; ${settings.episodes} episodes per matchup, sides swapped every other episode; tournament seed ${settings.seed}.`;
}

/** LLM episodes in flight at once where the options name none. */
export const DEFAULT_LLM_CONCURRENCY = 8;

/**
 * A tournament's platform spec: its local engine sized, where LLM_SEQUENCES and LLM_THREADS
 * set nothing, with a sequence for every language-model team in flight (two per episode),
 * so each keeps its last situation evaluated; and a thread on every core, since the episodes
 * wait on the model (`npm run bench -- --only local-llm` prints a decision's time on the
 * threads LLM_THREADS gives).
 */
export function tournamentSpec(spec: PlatformSpec, llmConcurrency: number = DEFAULT_LLM_CONCURRENCY, cores: number = availableParallelism()): PlatformSpec {
  return { ...spec, llm: withEngineDefaults(spec.llm, { threads: cores, sequences: Math.min(64, 2 * llmConcurrency) }) };
}

/** An episode could not be played: the run stops, its records kept, and says how to go on. */
export class EpisodeFailed extends Error {
  constructor(cause: unknown, recorded: number, planned: number, recordsPath: string) {
    const why = (cause instanceof Error ? cause.message : String(cause)).replace(/\.+$/, '');
    super(
      `an episode could not be played: ${why}. The tournament stopped; the ${recorded} of ${planned} episodes recorded are kept in ${recordsPath}: ` +
        'once the cause is mended, run the same command with --resume to play the rest.',
      { cause },
    );
    this.name = 'EpisodeFailed';
  }
}

export async function runTournament(options: RunOptions): Promise<RunResult> {
  const { settings, out, platform } = options;
  const llmConcurrency = options.llmConcurrency ?? DEFAULT_LLM_CONCURRENCY;
  const needs = await checkTeams(settings.teams, platform);
  if (options.queue) await probeRedis(options.queue.redis);
  mkdirSync(out, { recursive: true });
  // One writer per folder: taken before anything in it is read, held until the reports are written.
  const lock = lockTournament(out, options.lockAs);
  try {
    const tookOver = tookOverMessage(lock);
    if (tookOver) options.onEvent?.(tookOver);
    return await playLocked(options, platform, llmConcurrency, needs.some((n) => n.languageModel));
  } finally {
    lock.release();
  }
}

async function playLocked(
  options: RunOptions,
  platform: NodePlatform,
  llmConcurrency: number,
  /** Whether any team talks to a language model (its episodes wait on the model, not a core). */
  llm: boolean,
): Promise<RunResult> {
  const { settings, out } = options;
  const manifestPath = join(out, 'manifest.json');
  const recordsPath = join(out, 'episodes.jsonl');
  let manifest: Manifest = await buildManifest(settings, platform);
  if (existsSync(manifestPath) || existsSync(recordsPath)) {
    if (!options.resume) throw new Error(`${out} already holds a tournament: add --resume to continue it, or choose a new --out`);
    if (existsSync(manifestPath)) {
      const found = readManifest(manifestPath);
      checkResume(found, manifest);
      manifest = found;
    }
  }

  const plan = planEpisodes(settings);
  const stamp = { id: tournamentId(manifest), seed: settings.seed };
  const { records: existing, duplicates } = checkExistingRecords(recordsPath, readRecords(recordsPath), stamp, plan);
  if (duplicates > 0) {
    options.onEvent?.(`${recordsPath}: ${countOf(duplicates, 'record')} of episodes already recorded earlier in the file dropped (each episode is counted once)`);
  }
  // Written only once the records found are known to be this tournament's.
  if (!existsSync(manifestPath)) writeWholeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  const done = new Set(existing.map((r) => r.key));
  const todo: PlannedEpisode[] = plan.filter((e) => !done.has(e.key));
  const records: EpisodeRecord[] = [...existing];
  options.onResumed?.(records.length, plan.length);
  let queueOutcome: QueueOutcome | undefined;

  if (todo.length > 0) {
    const writer = new RecordWriter(recordsPath);
    // The first failure (a record that cannot be written, an episode that cannot be played)
    // is the run's one error: the pool's own complaints as it stops, and a close after it, are not.
    let failure: unknown = null;
    let stopSharing: (() => void) | null = null;
    try {
      if (options.queue) {
        queueOutcome = await coordinate({
          redis: options.queue.redis,
          manifest,
          plan,
          recorded: done,
          episodesPerJob: options.queue.episodesPerJob ?? (llm ? 1 : DEFAULT_EPISODES_PER_JOB),
          append(played) {
            const record = stampRecord(played, stamp);
            writer.append(record);
            records.push(record);
            options.onRecorded?.(records);
          },
          lockMs: options.queue.lockMs ?? DEFAULT_LOCK_SECONDS * 1000,
          ...(options.workers > 0
            ? { local: { threads: options.workers, concurrency: llm ? llmConcurrency : 2 * options.workers, platform, name: `${hostname()}:${process.pid} (coordinator)` } }
            : {}),
          onProgress: (p) => options.onProgress?.(p.done, p.total, p.shares),
          ...(options.queue.onEvent ? { onEvent: options.queue.onEvent } : {}),
          ...(options.queue.silenceMs !== undefined ? { silenceMs: options.queue.silenceMs } : {}),
        });
      } else {
        // A model in this process (the local engine, loaded by the probe) is shared with the
        // worker threads over a channel: one copy in memory, one sequence per episode in flight.
        const connection = llm ? await platform.llm.connect() : null;
        const channel = connection?.inProcess ? `hillmind-llm-${process.pid}-${randomUUID()}` : null;
        stopSharing = channel ? serveChatClient(connection!.client, channel) : null;
        const perThread = llm ? Math.max(1, Math.ceil(llmConcurrency / options.workers)) : (options.perWorker ?? 4);
        const pool = episodePool(options.workers, perThread, platform.spec, channel ? { engineChannel: channel } : {});
        // The pool is fed only as many episodes as it plays at once, so the first failure (a
        // model server gone silent) stops the run at once rather than after every episode
        // left has failed the same way.
        let next = 0;
        const lane = async () => {
          while (!failure && next < todo.length) {
            const episode = todo[next++]!;
            let played: EpisodeRecord;
            try {
              played = await pool.play(episode);
            } catch (err) {
              failure ??= new EpisodeFailed(err, records.length, plan.length, recordsPath);
              return;
            }
            try {
              const record = stampRecord(played, stamp);
              if (failure) return;
              writer.append(record);
              records.push(record);
              options.onRecorded?.(records);
              options.onProgress?.(records.length, plan.length);
            } catch (err) {
              failure ??= err;
            }
          }
        };
        await Promise.all(Array.from({ length: Math.min(todo.length, options.workers * perThread) }, lane));
        await pool.close().catch(() => undefined);
      }
    } catch (err) {
      failure ??= err;
    }
    try {
      writer.close();
    } catch (err) {
      failure ??= err;
    }
    stopSharing?.();
    if (failure) throw failure;
    if (queueOutcome?.failed.length) {
      const lost = queueOutcome.failed.reduce((n, f) => n + f.episodes, 0);
      const listed = queueOutcome.failed.slice(0, 5).map((f) => `${f.id} (${f.attempts} attempts): ${f.error}`);
      throw new Error(
        `${countOf(lost, 'episode')} could not be played: ${listed.join('; ')}${queueOutcome.failed.length > 5 ? `; and ${queueOutcome.failed.length - 5} more jobs` : ''}. The others are recorded; fix the cause and run again with --resume.`,
      );
    }
  }

  const summary = summarizeTournament(records, settings.teams, settings.seed);
  const title = `Tournament: ${settings.teams.join(', ')}`;
  for (const [name, text] of await tournamentReportFiles(records, summary, title, describeSettings(settings))) writeWholeFile(join(out, name), text);
  return { records, summary, played: records.length - existing.length, skipped: existing.length, duplicatesDropped: duplicates, ...(queueOutcome ? { queue: queueOutcome } : {}) };
}

export { reportText };
