/**
 * A tournament worker (one per thread): plays episodes and returns their records. A worker
 * runs several episodes at once, so the trained policies' inference batches across them.
 */
import { workerData } from 'node:worker_threads';
import { runMatch } from '../match';
import { llmStrategistOf } from '../teams';
import { type NodePlatformOptions, nodePlatform } from '../teams/nodePlatform';
import type { PlannedEpisode } from './plan';
import { type EpisodeRecord, toRecord } from './records';

// Each worker thread builds its own platform from the options the tournament passed it.
const platform = nodePlatform(workerData as NodePlatformOptions);

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
