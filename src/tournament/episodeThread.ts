/**
 * A tournament worker (one per thread): plays episodes and returns their records. A worker
 * runs several episodes at once, so the trained policies' inference batches across them.
 * Its platform is built once, from the spec the pool sends (checked on arrival), and closed
 * when the pool asks.
 */
import { BroadcastChannel, threadId, workerData } from 'node:worker_threads';
import { runMatch } from '../match';
import { llmStrategistOf } from '../teams';
import { nodePlatform } from '../teams/nodePlatform';
import type { PlannedEpisode } from './plan';
import { type EpisodeRecord, toRecord } from './records';
import { POOL_CLOSE, POOL_CLOSED, POOL_READY, episodeWorkerDataSchema } from './workerData';

const data = episodeWorkerDataSchema.parse(workerData);
const platform = nodePlatform(data.spec, data.engineChannel ? { engineChannel: data.engineChannel } : {});

const control = new BroadcastChannel(data.control);
control.onmessage = (event) => {
  if ((event as { data: { kind: string } }).data.kind !== POOL_CLOSE) return;
  void platform
    .close()
    .catch(() => undefined)
    .then(() => control.postMessage({ kind: POOL_CLOSED, thread: threadId }));
};
control.unref();
control.postMessage({ kind: POOL_READY, thread: threadId });

export default async function playEpisode(episode: PlannedEpisode): Promise<EpisodeRecord> {
  const match = await runMatch({ blue: episode.blue, red: episode.red, seed: episode.seed }, { platform, record: false });
  // The language-model strategists' model, provider and counters (calls, failures by kind, latency, tokens).
  const llm: Record<string, unknown> = {};
  match.controllers.forEach((controller, side) => {
    const strategist = llmStrategistOf(controller);
    if (strategist) llm[side === 0 ? 'blue' : 'red'] = strategist.report();
  });
  return toRecord(episode, match.summary(), Object.keys(llm).length ? llm : undefined);
}
