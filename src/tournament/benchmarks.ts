/** Tournament throughput for `npm run bench`: non-LLM episodes per second on 1 and 2 workers. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchRow } from '../match/benchmarks';
import { runTournament } from './run';

async function episodesPerSecond(workers: number, episodes: number): Promise<number> {
  const out = mkdtempSync(join(tmpdir(), 'hillmind-bench-'));
  try {
    const started = performance.now();
    const result = await runTournament({ settings: { teams: ['bt-scripted', 'heuristic'], episodes, seed: 1 }, platform: { env: { ...process.env } }, out, workers, resume: false });
    return result.played / ((performance.now() - started) / 1000);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

export async function benchTournament(seconds: number): Promise<BenchRow[]> {
  // Enough episodes that starting the worker threads (about a second each) is a small part.
  const episodes = Math.max(500, Math.round(500 * seconds));
  const one = await episodesPerSecond(1, episodes);
  const two = await episodesPerSecond(2, episodes);
  return [
    { name: 'tournament bt-scripted vs heuristic, 1 worker', value: one, unit: 'episodes/s', target: 100 },
    { name: 'tournament bt-scripted vs heuristic, 2 workers', value: two, unit: 'episodes/s', target: 100 },
    { name: 'tournament speed-up, 2 workers over 1', value: two / one, unit: 'x' },
    { name: 'study round robin (3,000 episodes), 2 workers', value: 3000 / two, unit: 's', target: 30, lowerIsBetter: true },
  ];
}
