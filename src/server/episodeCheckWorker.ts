/**
 * A worker thread of the episode checks (episodeChecks.ts): reads, validates and
 * re-simulates one episode request body at a time, with its own model library.
 */
import { workerData } from 'node:worker_threads';
import { ModelLibrary } from '../skills';
import { nodeModelSource } from '../skills/nodeModels';
import { type EpisodeCheck, type EpisodeExpectation, checkEpisode } from '../survey/episodeCheck';

const models = new ModelLibrary(nodeModelSource((workerData as { modelDir: string }).modelDir));

export default function check(task: { body: Uint8Array; expected: EpisodeExpectation | null }): Promise<EpisodeCheck> {
  return checkEpisode(task.body, task.expected, models);
}
