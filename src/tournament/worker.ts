/**
 * A tournament worker (one per thread): plays episodes and returns their records. A worker
 * runs several episodes at once, so the trained policies' inference batches across them.
 */
import { runMatch } from '../match';
import { setModelSource } from '../skills';
import { nodeModelSource } from '../skills/nodeModels';
import type { PlannedEpisode } from './plan';
import { type EpisodeRecord, toRecord } from './records';

setModelSource(nodeModelSource());

export default async function playEpisode(episode: PlannedEpisode): Promise<EpisodeRecord> {
  const match = await runMatch({ blue: episode.blue, red: episode.red, seed: episode.seed }, { record: false });
  return toRecord(episode, match.summary());
}
