/**
 * npm run worker -- --queue redis://host:port [--workers N] [--concurrency N] [--lock-seconds S]
 *
 * Plays the jobs of every tournament coordinated over that Redis, with this machine's own
 * models (HILLMIND_MODELS) and language-model settings (OPENAI_BASE_URL, LLM_*). Runs until
 * interrupted; Ctrl-C lets the jobs in progress finish first.
 */
import { availableParallelism, hostname } from 'node:os';
import { DEFAULT_LOCK_SECONDS, startQueueWorker } from '../tournament/queueWorker';
import { parseRedisAddress } from '../tournament/redis';
import { UsageError, integerOption, parseCommandLine, runCli } from './args';
import { WORKER } from './defaults';
import { commandPlatformSpec, withPlatform } from './platform';
import { countOf } from '../sim';

const USAGE = `usage: npm run worker -- --queue redis://host:port [--workers N] [--concurrency N] [--lock-seconds S]

  --queue          the coordinator's Redis (rediss:// for TLS; redis://user:password@host:port,
                   or the password in HILLMIND_REDIS_PASSWORD)
  --workers        threads playing episodes (default: one per core)
  --concurrency    jobs in progress at once per tournament (default: ${WORKER.jobsPerThread} per thread)
  --lock-seconds   how long a job stays with a worker that went silent before another takes
                   it (default ${DEFAULT_LOCK_SECONDS})`;

runCli(async () => {
  const { values } = parseCommandLine(
    {
      queue: { type: 'string' },
      workers: { type: 'string' },
      concurrency: { type: 'string' },
      'lock-seconds': { type: 'string' },
    },
    USAGE,
  );
  if (!values.queue) throw new UsageError(`--queue is required\n\n${USAGE}`);
  let redis;
  try {
    redis = parseRedisAddress(values.queue, process.env.HILLMIND_REDIS_PASSWORD);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const threads = Math.max(1, integerOption('workers', values.workers, availableParallelism()));
  const concurrency = Math.max(1, integerOption('concurrency', values.concurrency, WORKER.jobsPerThread * threads));
  const lockSeconds = integerOption('lock-seconds', values['lock-seconds'], DEFAULT_LOCK_SECONDS, 3600);
  if (lockSeconds < 1) throw new UsageError('--lock-seconds must be at least 1');
  const name = `${hostname()}:${process.pid}`;
  const log = (message: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${message}`);

  await withPlatform(commandPlatformSpec(), async (platform) => {
    const worker = await startQueueWorker({ redis, platform, threads, concurrency, lockMs: lockSeconds * 1000, name, onEvent: log });
    log(`worker ${name}: ${countOf(threads, 'thread')}, ${concurrency} jobs at once, waiting for tournaments at ${redis.shown}`);
    await new Promise<void>((resolve) => {
      const stop = () => {
        log('stopping: finishing the jobs in progress (interrupt again to stop at once)');
        process.once('SIGINT', () => process.exit(130));
        resolve();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await worker.close();
    log(`worker ${name} stopped after ${worker.played()} episodes`);
  });
});
