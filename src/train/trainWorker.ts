/**
 * A training worker thread (started by trainer.ts): trains its share with PpoLearner over
 * the shared collective and posts each update's statistics and its state; worker 0 also
 * posts the networks and Adam's state (the same in every worker).
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
while (!learner.done) {
  const stats = learner.runUpdate();
  const lead = setup.rank === 0 ? { state: policyStateData(state), adam: learner.adamState() } : {};
  post({ kind: 'update', rank: setup.rank, stats, shard: learner.shardState(), ...lead });
}
post({ kind: 'done', rank: setup.rank });
