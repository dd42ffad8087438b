/**
 * Episode records: one JSON object per line in episodes.jsonl, written to the file (not
 * buffered in the process) as each episode ends, so a killed run loses at most the line it
 * was writing. Reading skips (and repair truncates) a torn last line. No fsync per record:
 * a killed process keeps what it wrote, and syncing every episode cost more than playing it.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, truncateSync, writeSync } from 'node:fs';
import type { MatchSummary } from '../match';
import type { PlannedEpisode } from './plan';

/** A planned episode with what happened in it. */
export interface EpisodeRecord extends PlannedEpisode {
  readonly matchup: string;
  /** The winning team id, or null for a draw. */
  readonly winner: string | null;
  readonly winnerSide: 'blue' | 'red' | 'draw';
  readonly durationSeconds: number;
  readonly progress: MatchSummary['progress'];
  readonly decisions: MatchSummary['decisions'];
  readonly agents: MatchSummary['agents'];
  /** Heatmaps and first contact (absent in records written before they were kept). */
  readonly behaviour?: MatchSummary['behaviour'];
  /** LLM call counters per side, when an LLM team played. */
  readonly llm?: Record<string, unknown>;
  readonly hash: string;
}

export function toRecord(episode: PlannedEpisode, summary: MatchSummary, llm?: Record<string, unknown>): EpisodeRecord {
  return {
    ...episode,
    matchup: `${episode.a} vs ${episode.b}`,
    winner: summary.winner === 'draw' ? null : summary[summary.winner],
    winnerSide: summary.winner,
    durationSeconds: summary.durationSeconds,
    progress: summary.progress,
    decisions: summary.decisions,
    agents: summary.agents,
    behaviour: summary.behaviour,
    ...(llm ? { llm } : {}),
    hash: summary.hash,
  };
}

/** Read every complete record; a torn last line (from a killed run) is cut off the file. */
export function readRecords(path: string): EpisodeRecord[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  const end = text.lastIndexOf('\n') + 1;
  if (end < text.length) truncateSync(path, Buffer.byteLength(text.slice(0, end)));
  const records: EpisodeRecord[] = [];
  text
    .slice(0, end)
    .split('\n')
    .forEach((line, i) => {
      if (!line) return;
      try {
        records.push(JSON.parse(line) as EpisodeRecord);
      } catch {
        throw new Error(`${path} line ${i + 1} is not a JSON record; fix or remove it before resuming`);
      }
    });
  return records;
}

/**
 * Appends records, one line each, written straight to the file. The operating system may
 * still hold them in its cache: they are synced to disk once, by close() at the end, so
 * a killed process loses nothing it wrote but a power cut may lose the unsynced tail.
 */
export class RecordWriter {
  private readonly fd: number;

  constructor(path: string) {
    this.fd = openSync(path, 'a');
  }

  append(record: EpisodeRecord): void {
    writeSync(this.fd, `${JSON.stringify(record)}\n`);
  }

  /** Sync once at the end, so a finished tournament is on disk. */
  close(): void {
    fsyncSync(this.fd);
    closeSync(this.fd);
  }
}
