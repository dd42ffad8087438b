/**
 * A tournament worker (one per thread): plays episodes and returns their records. A worker
 * runs several episodes at once, so the trained policies' inference batches across them.
 */
import { runMatch } from '../match';
import { setModelSource } from '../skills';
import { nodeModelSource } from '../skills/nodeModels';
import { llmStrategistOf } from '../teams';
import type { PlannedEpisode } from './plan';
import { type EpisodeRecord, toRecord } from './records';

setModelSource(nodeModelSource());

export default async function playEpisode(episode: PlannedEpisode): Promise<EpisodeRecord> {
  const match = await runMatch({ blue: episode.blue, red: episode.red, seed: episode.seed }, { record: false });
  // The language-model strategists' counters (calls, failures by kind, latency, tokens).
  const llm: Record<string, unknown> = {};
  match.controllers.forEach((controller, side) => {
    const strategist = llmStrategistOf(controller);
    if (strategist) llm[side === 0 ? 'blue' : 'red'] = strategist.stats();
  });
  return toRecord(episode, match.summary(), Object.keys(llm).length ? llm : undefined);
}
