/**
 * Episode checks off the server's main thread. Reading an episode (up to 8 MiB of JSON),
 * validating it and re-simulating it took the main thread for 8-13 s on a hostile body,
 * during which no other participant was answered; on worker threads the main thread only
 * gathers the body and stores the answer. A check has a time limit (the worker is ended
 * past it) and the queue a length, so neither one body nor a burst of them holds the
 * server.
 */
import { Piscina } from 'piscina';
import type { EpisodeCheck, EpisodeChecker } from '../survey/episodeCheck';
import { type PlatformSpec, parsePlatformSpec } from '../teams/nodePlatform';

export interface EpisodeCheckPoolOptions {
  /** The server's platform spec: each thread builds its platform (the trained models the episodes' AI sides are checked against) from it. */
  readonly spec: PlatformSpec;
  /** Worker threads (default 1: the main thread keeps a core on a 2-core machine). */
  readonly threads?: number;
  /**
   * Longest one check may take before it is ended and answered 503. Default 90 s: a check
   * re-simulates the episode with trained skills on both sides, at the pace
   * `npm run bench -- --only matches` prints as "verify bt vs flat" (agent-ticks/s), and
   * the longest episode a study allows (600 s, 120,000 agent-ticks) takes well under half
   * of that at the pace of a 2-core machine.
   */
  readonly timeoutMs?: number;
  /** Checks waiting for a thread before more are answered 503 (default 16). */
  readonly maxQueue?: number;
}

export function episodeCheckPool(options: EpisodeCheckPoolOptions): EpisodeChecker {
  const threads = options.threads ?? 1;
  const timeoutMs = options.timeoutMs ?? 90_000;
  const pool = new Piscina({
    filename: new URL('./episodeCheckThread.ts', import.meta.url).href,
    minThreads: threads,
    maxThreads: threads,
    maxQueue: options.maxQueue ?? 16,
    // Checked here, so a wrong spec fails at start with its reason, not inside a thread.
    workerData: { spec: parsePlatformSpec(options.spec) },
    // The worker is TypeScript: give its thread the same loader the server runs under.
    execArgv: [...process.execArgv.filter((a) => !a.startsWith('--cpu-prof')), ...(process.execArgv.some((a) => a.includes('tsx')) ? [] : ['--import', 'tsx'])],
  });
  return {
    async check(body, expected): Promise<EpisodeCheck> {
      // The body moves to the worker rather than being copied there.
      const bytes = typeof body === 'string' ? Buffer.from(body) : body;
      const owned = new Uint8Array(bytes.byteLength);
      owned.set(bytes);
      try {
        return (await pool.run({ body: owned, expected }, { transferList: [owned.buffer], signal: AbortSignal.timeout(timeoutMs) })) as EpisodeCheck;
      } catch (err) {
        const message = (err as Error).message;
        if ((err as Error).name === 'AbortError') return { kind: 'refused', status: 503, message: `checking the episode took longer than ${timeoutMs / 1000} s; try sending it again` };
        if (message === 'Task queue is at limit') return { kind: 'refused', status: 503, message: 'the server is busy checking other episodes; try sending it again in a few seconds' };
        throw err;
      }
    },
    close: () => pool.destroy(),
  };
}
