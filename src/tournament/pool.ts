/**
 * The pool of worker threads that play episodes (src/tournament/worker.ts), for a local
 * tournament and for a queue worker alike. Each thread builds its own platform from the
 * options given here.
 */
import { Piscina } from 'piscina';
import type { NodePlatformOptions } from '../teams/nodePlatform';
import type { PlannedEpisode } from './plan';
import type { EpisodeRecord } from './records';

export interface EpisodePool {
  play(episode: PlannedEpisode): Promise<EpisodeRecord>;
  close(): Promise<void>;
}

/**
 * `threads` threads, each playing up to `perThread` episodes at once (so batched inference
 * groups them, or LLM episodes wait on the network together).
 */
export function episodePool(threads: number, perThread: number, platform: NodePlatformOptions): EpisodePool {
  const pool = new Piscina({
    filename: new URL('./worker.ts', import.meta.url).href,
    minThreads: threads,
    maxThreads: threads,
    workerData: platform,
    concurrentTasksPerWorker: Math.max(1, perThread),
    // The worker is TypeScript: give its thread the same loader the CLI runs under.
    execArgv: [...process.execArgv.filter((a) => !a.startsWith('--cpu-prof')), ...(process.execArgv.some((a) => a.includes('tsx')) ? [] : ['--import', 'tsx'])],
  });
  return {
    play: (episode) => pool.run(episode) as Promise<EpisodeRecord>,
    close: () => pool.destroy(),
  };
}
