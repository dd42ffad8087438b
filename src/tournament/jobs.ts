/**
 * What travels over the queue, in one place for the coordinator and the workers.
 *
 * - Each tournament has its own BullMQ queue, named from its manifest's id, under the
 *   `hillmind` prefix; the registry (a Redis hash) lists the tournaments being played, with
 *   their manifests, so a worker started with just the Redis address finds them.
 * - A job is a run of consecutive episodes of one matchup, at most `perJob` of them. Its id
 *   is the episode key ("a|b|3") for a single episode, or the range ("a|b|0-15"), so adding
 *   the same plan twice (a resumed coordinator) adds nothing new: BullMQ keeps one job per id.
 * - A job returns the worker's name and the records it played.
 */
import { z } from 'zod';
import type { Manifest } from './manifest';
import type { PlannedEpisode } from './plan';
import type { EpisodeRecord } from './records';

export const QUEUE_PREFIX = 'hillmind';
/** Hash: tournament id -> JSON { queue, manifest }. */
export const REGISTRY_KEY = `${QUEUE_PREFIX}:tournaments`;

export const queueName = (tournament: string) => `tournament-${tournament}`;
/** Hash: worker name -> why it refused the tournament. */
export const refusalsKey = (tournament: string) => `${QUEUE_PREFIX}:refusals:${tournament}`;

/** Episodes per job when none is asked for: enough to make the queue's cost per job small. */
export const DEFAULT_EPISODES_PER_JOB = 16;

/** Attempts per job before it is reported failed (an episode that throws); a fixed pause between them. */
export const JOB_ATTEMPTS = 3;
export const RETRY_DELAY_MS = 1000;
/** How often a job may lose its worker (lock expired) and go back to the queue before it fails. */
export const MAX_STALLED = 3;

export interface RegistryEntry {
  readonly queue: string;
  readonly manifest: Manifest;
}

export interface EpisodeJob {
  readonly tournament: string;
  readonly episodes: readonly PlannedEpisode[];
}

export interface JobResult {
  readonly worker: string;
  readonly records: readonly EpisodeRecord[];
}

export interface PlannedJob {
  readonly id: string;
  readonly episodes: readonly PlannedEpisode[];
}

// BullMQ refuses ':' in job ids, and variants (llm:format=json) have them.
const jobIdOf = (text: string) => text.replace(/%/g, '%25').replace(/:/g, '%3A');

/** The plan cut into jobs: runs of at most `perJob` consecutive episodes of one matchup. */
export function planJobs(plan: readonly PlannedEpisode[], perJob: number): PlannedJob[] {
  const size = Math.max(1, Math.floor(perJob));
  const jobs: PlannedJob[] = [];
  let run: PlannedEpisode[] = [];
  const flush = () => {
    if (!run.length) return;
    const first = run[0]!;
    const last = run[run.length - 1]!;
    jobs.push({ id: jobIdOf(run.length === 1 ? first.key : `${first.a}|${first.b}|${first.index}-${last.index}`), episodes: run });
    run = [];
  };
  for (const episode of plan) {
    const previous = run[run.length - 1];
    if (previous && (previous.a !== episode.a || previous.b !== episode.b || run.length >= size)) flush();
    run.push(episode);
  }
  flush();
  return jobs;
}

const plannedEpisodeSchema = z.object({
  key: z.string().max(500),
  a: z.string().max(200),
  b: z.string().max(200),
  index: z.number().int().min(0),
  seed: z.number().int().min(0),
  blue: z.string().max(200),
  red: z.string().max(200),
});

export const episodeJobSchema = z.object({
  tournament: z.string().min(1).max(200),
  episodes: z.array(plannedEpisodeSchema).min(1).max(10_000),
});

// Records are checked for what the coordinator relies on; the rest is kept as the worker sent it.
const recordSchema = plannedEpisodeSchema.extend({ hash: z.string().regex(/^[0-9a-f]{16}$/), winnerSide: z.enum(['blue', 'red', 'draw']) }).loose();

export const jobResultSchema = z.object({
  worker: z.string().min(1).max(300),
  records: z.array(recordSchema).max(10_000),
});
