/**
 * A worker thread of the episode checks (episodeChecks.ts): reads, validates and
 * re-simulates one episode request body at a time. Its platform is built once from the spec
 * the pool sends (checked on arrival, like a tournament thread's); only its trained models
 * are used, since an episode's AI sides are checked without a language model.
 */
import { workerData } from 'node:worker_threads';
import { type EpisodeCheck, type EpisodeExpectation, checkEpisode } from '../survey/episodeCheck';
import { nodePlatform, parsePlatformSpec } from '../teams/nodePlatform';

const platform = nodePlatform(parsePlatformSpec((workerData as { spec: unknown }).spec));

export default function check(task: { body: Uint8Array; expected: EpisodeExpectation | null }): Promise<EpisodeCheck> {
  return checkEpisode(task.body, task.expected, platform.models);
}
