/**
 * A worker thread of the episode checks (episodeChecks.ts): reads, validates and
 * re-simulates one episode request body at a time. An episode's AI sides are checked
 * without a language model, so the thread builds no platform (whose language model it
 * would have to close): only the trained models of the spec the pool sends (checked on
 * arrival, like a tournament thread's), which hold nothing to free.
 */
import { workerData } from 'node:worker_threads';
import { ModelLibrary } from '../skills';
import { nodeModelSource } from '../skills/nodeModels';
import { type EpisodeCheck, type EpisodeExpectation, checkEpisode } from '../survey/episodeCheck';
import { parsePlatformSpec } from '../teams/nodePlatform';

const models = new ModelLibrary(nodeModelSource(parsePlatformSpec((workerData as { spec: unknown }).spec).models));

export default function check(task: { body: Uint8Array; expected: EpisodeExpectation | null }): Promise<EpisodeCheck> {
  return checkEpisode(task.body, task.expected, models);
}
