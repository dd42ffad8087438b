/**
 * What a pool gives each episode-playing thread (pool.ts to episodeThread.ts): the platform spec to
 * build its platform from, where the coordinator's local engine answers, and the control
 * channel on which the pool asks the threads to close their platforms.
 */
import { z } from 'zod';
import { platformSpecSchema } from '../teams/nodePlatform';

export const episodeWorkerDataSchema = z.object({
  spec: platformSpecSchema,
  /** A channel where this process's local engine answers (channel.ts). */
  engineChannel: z.string().min(1).optional(),
  /** The pool's control channel (ready, close, closed). */
  control: z.string().min(1),
});

export type EpisodeWorkerData = z.infer<typeof episodeWorkerDataSchema>;

/** A thread has built its platform. */
export const POOL_READY = 'ready';
/** The pool asks every thread to close its platform. */
export const POOL_CLOSE = 'close';
/** A thread has closed its platform. */
export const POOL_CLOSED = 'closed';
