/**
 * A training worker thread (started by trainer.ts): trains its share with PpoLearner over
 * the shared collective and posts each update's statistics and its state; worker 0 also
 * posts the networks, Adam's state and the league's news (the same in every worker).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SharedCollective } from './collective';
import { PpoLearner } from './learner';
import { policyStateData, policyStateFrom } from './ppo';
import type { WorkerMessage, WorkerSetup } from './trainer';

const setup = workerData as WorkerSetup;
const state = policyStateFrom(setup.state);
const learner = new PpoLearner(setup.plan, state, new SharedCollective(setup.memory, setup.rank), setup.startSteps, setup.trainer ? { trainer: setup.trainer } : undefined);
const post = (message: WorkerMessage) => parentPort!.postMessage(message);
/** Snapshots the main thread has: it is sent only the new ones (each is a whole policy network). */
let snapshotsSent = setup.trainer?.league?.snapshots.length ?? 0;
while (!learner.done) {
  const stats = learner.runUpdate();
  const league = setup.rank === 0 && learner.league ? { league: learner.league.stateSince(snapshotsSent) } : {};
  snapshotsSent += league.league?.snapshots.length ?? 0;
  const lead = setup.rank === 0 ? { state: policyStateData(state), adam: learner.adamState(), ...league } : {};
  post({ kind: 'update', rank: setup.rank, stats, shard: learner.shardState(), ...lead });
}
post({ kind: 'done', rank: setup.rank });
