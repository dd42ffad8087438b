/**
 * The pool of worker threads that play episodes (src/tournament/episodeThread.ts), for a local
 * tournament and for a queue worker alike. Each thread builds its own platform from the
 * spec given here, and closes it when the pool closes (a thread's own local engine is
 * disposed before the thread ends).
 */
import { randomUUID } from 'node:crypto';
import { BroadcastChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { NodePlatformOptions, PlatformSpec } from '../teams/nodePlatform';
import type { PlannedEpisode } from './plan';
import type { EpisodeRecord } from './records';
import { POOL_CLOSE, POOL_CLOSED, POOL_READY, type EpisodeWorkerData } from './workerData';

export interface EpisodePool {
  play(episode: PlannedEpisode): Promise<EpisodeRecord>;
  /** Close every thread's platform, then end the threads; resolves with the number of threads that closed theirs. */
  close(): Promise<number>;
}

/**
 * `threads` threads, each playing up to `perThread` episodes at once (so batched inference
 * groups them, or LLM episodes wait on the network together).
 */
export function episodePool(threads: number, perThread: number, spec: PlatformSpec, options: NodePlatformOptions = {}): EpisodePool {
  const control = `hillmind-pool-${process.pid}-${randomUUID()}`;
  const threadsUp = listenForThreads(control);
  const workerData: EpisodeWorkerData = { spec, control, ...(options.engineChannel ? { engineChannel: options.engineChannel } : {}) };
  const pool = new Piscina({
    filename: new URL('./episodeThread.ts', import.meta.url).href,
    minThreads: threads,
    maxThreads: threads,
    workerData,
    concurrentTasksPerWorker: Math.max(1, perThread),
    // Idle threads wait on their event loop, not paused in Atomics.wait, so they hear the
    // pool's control channel (close). An episode is a task of milliseconds, so the hand-off by
    // message costs nothing measurable: 300 episodes of bt-scripted vs heuristic on 2 threads
    // ran at 27.4 and 40.9 episodes/s so, 26.7 and 28.2 with Atomics (a shared 2-core machine).
    atomics: 'disabled',
    // The worker is TypeScript: give its thread the same loader the CLI runs under.
    execArgv: [...process.execArgv.filter((a) => !a.startsWith('--cpu-prof')), ...(process.execArgv.some((a) => a.includes('tsx')) ? [] : ['--import', 'tsx'])],
  });
  return {
    play: (episode) => pool.run(episode) as Promise<EpisodeRecord>,
    async close() {
      const closed = await threadsUp.closeAll();
      await pool.destroy();
      return closed;
    },
  };
}

/** How long a thread may take to close its platform before the pool ends it anyway. */
const THREAD_CLOSE_MS = 10_000;

/**
 * The pool's side of the threads' control channel: which threads have built their platform,
 * and closing them all (each answers once its platform is closed).
 */
function listenForThreads(name: string): { closeAll(): Promise<number> } {
  const channel = new BroadcastChannel(name);
  const ready = new Set<number>();
  const closed = new Set<number>();
  let allClosed: (() => void) | null = null;
  channel.onmessage = (event) => {
    const message = (event as { data: { kind: string; thread: number } }).data;
    if (message.kind === POOL_READY) ready.add(message.thread);
    if (message.kind === POOL_CLOSED) closed.add(message.thread);
    if (allClosed && [...ready].every((t) => closed.has(t))) allClosed();
  };
  channel.unref();
  return {
    async closeAll() {
      // Held open while the threads answer, so the process waits for them.
      channel.ref();
      await new Promise<void>((done) => {
        const timer = setTimeout(done, THREAD_CLOSE_MS);
        allClosed = () => {
          clearTimeout(timer);
          done();
        };
        channel.postMessage({ kind: POOL_CLOSE });
        if ([...ready].every((t) => closed.has(t))) allClosed();
      });
      channel.close();
      return closed.size;
    },
  };
}
