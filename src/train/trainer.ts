/**
 * Runs a training plan to its step budget on config.workers workers: one worker runs in
 * this thread; two or more all run as worker threads (src/train/trainThread.ts), each
 * stepping its share of the environments and computing its share of every gradient, joined
 * by a SharedCollective, while this thread runs the hooks.
 * The caller sees the same thing either way: `state` trained in place, and after every
 * update its statistics, the networks and (on demand) the trainer's state for a checkpoint.
 *
 * Why data-parallel rather than rollouts beside updates: updates were 82% of a
 * single-core run (npm run bench), so overlapping the two could save at most the other
 * 18%; splitting both over the workers uses every core in both phases.
 */
import { Worker } from 'node:worker_threads';
import { SOLO, collectiveMemory } from './collective';
import type { TrainingPlan } from './config';
import { type LeagueState, extendLeagueState } from './league';
import { PpoLearner, type ShardState, type TrainerState } from './learner';
import { type PolicyState, type PolicyStateData, type UpdateStats, policyStateData, policyStateFrom } from './ppo';

export type { TrainerState, TrainingPlan };

export interface TrainHooks {
  /** After each update; `trainer()` gives the trainer's state (for a checkpoint). */
  onUpdate?(stats: UpdateStats, state: PolicyState, trainer: () => TrainerState): void | Promise<void>;
}

/** What a worker thread is given. */
export interface WorkerSetup {
  readonly plan: TrainingPlan;
  readonly state: PolicyStateData;
  readonly rank: number;
  readonly memory: ReturnType<typeof collectiveMemory>;
  readonly startSteps: number;
  readonly trainer?: TrainerState;
}

/** What a worker thread posts after each update (worker 0 adds the networks and Adam's state). */
export type WorkerMessage =
  | { readonly kind: 'update'; readonly rank: number; readonly stats: UpdateStats; readonly shard: ShardState; readonly state?: PolicyStateData; readonly adam?: TrainerState['adam']; readonly league?: LeagueState }
  | { readonly kind: 'done'; readonly rank: number };

/**
 * Train `state` in place until config.totalSteps learner decisions. A resumed run passes
 * the steps done and, when its checkpoint has it, the trainer's state: then it continues
 * exactly; without it the optimizer, the random streams and the episodes start afresh.
 */
export async function trainPpo(plan: TrainingPlan, state: PolicyState, hooks: TrainHooks = {}, startSteps = 0, trainer?: TrainerState): Promise<void> {
  const workers = plan.config.workers;
  if (!Number.isInteger(workers) || workers < 1) throw new Error(`workers must be a whole number from 1 up, got ${workers}`);
  if (workers === 1) return trainHere(plan, state, hooks, startSteps, trainer);
  return trainOnThreads(plan, state, hooks, startSteps, trainer);
}

async function trainHere(plan: TrainingPlan, state: PolicyState, hooks: TrainHooks, startSteps: number, trainer?: TrainerState): Promise<void> {
  const learner = new PpoLearner(plan, state, SOLO, startSteps, trainer ? { trainer } : undefined);
  while (!learner.done) {
    const stats = learner.runUpdate();
    await hooks.onUpdate?.(stats, state, () => ({ workers: 1, update: learner.updates, adam: learner.adamState(), shards: [learner.shardState()], ...learner.leagueState() }));
  }
}

/** The gradient buffer's length: both networks, the log stds and a few statistics. */
function reduceCapacity(state: PolicyState): number {
  return state.policy.params.length + state.value.params.length + 64;
}

function trainOnThreads(plan: TrainingPlan, state: PolicyState, hooks: TrainHooks, startSteps: number, trainer?: TrainerState): Promise<void> {
  const size = plan.config.workers;
  if (trainer && trainer.workers !== size) {
    return Promise.reject(new Error(`the checkpoint was trained by ${trainer.workers} workers; resuming with ${size} would not continue it exactly`));
  }
  const memory = collectiveMemory(size, reduceCapacity(state));
  const initial = policyStateData(state);
  const threads = Array.from({ length: size }, (_, rank) => {
    const setup: WorkerSetup = { plan, state: initial, rank, memory, startSteps, ...(trainer ? { trainer } : {}) };
    return new Worker(TRAIN_THREAD, { eval: true, workerData: setup });
  });

  return new Promise<void>((resolve, reject) => {
    /** Per update, the workers' messages so far. */
    const arrived = new Map<number, Extract<WorkerMessage, { kind: 'update' }>[]>();
    let finished = 0;
    let failed = false;
    let hooksDone: Promise<void> = Promise.resolve();
    /** The league as worker 0 has reported it so far (it sends only new snapshots). */
    let league = trainer?.league;
    const stop = (err: unknown) => {
      if (failed) return;
      failed = true;
      for (const t of threads) void t.terminate();
      reject(err);
    };
    const complete = (messages: Extract<WorkerMessage, { kind: 'update' }>[]) => {
      const lead = messages.find((m) => m.rank === 0)!;
      if (lead.league) league = extendLeagueState(league, lead.league);
      const snapshot: TrainerState = {
        workers: size,
        update: lead.stats.update,
        adam: lead.adam!,
        shards: [...messages].sort((a, b) => a.rank - b.rank).map((m) => m.shard),
        ...(league ? { league } : {}),
      };
      // Hooks run one after another, each seeing the networks of its own update.
      hooksDone = hooksDone
        .then(() => {
          if (failed) return;
          policyStateFrom(lead.state!, state);
          return hooks.onUpdate?.(lead.stats, state, () => snapshot);
        })
        .catch(stop);
    };
    threads.forEach((thread) => {
      thread.on('message', (message: WorkerMessage) => {
        if (failed) return;
        if (message.kind === 'done') {
          if (++finished === size) void hooksDone.then(() => (failed ? undefined : resolve()));
          return;
        }
        const messages = arrived.get(message.stats.update) ?? [];
        messages.push(message);
        arrived.set(message.stats.update, messages);
        if (messages.length === size) {
          arrived.delete(message.stats.update);
          complete(messages);
        }
      });
      thread.on('error', stop);
      thread.on('exit', (code) => {
        if (code !== 0) stop(new Error(`a training worker stopped with exit code ${code}`));
      });
    });
  });
}

/**
 * The worker's entry is TypeScript: its thread registers tsx's loader and then imports it
 * (a worker started on a .ts file directly, even with the loader in execArgv, is refused
 * by Node 20 before any hook runs).
 */
const TRAIN_THREAD = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(new URL('./trainThread.ts', import.meta.url).href)}); })`;
