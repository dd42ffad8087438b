/**
 * npm run tournament -- --teams <a,b,c> --episodes <n per matchup> --out <dir>
 *                       [--workers N] [--seed S] [--resume] [--llm-concurrency N]
 *                       [--queue redis://host:port [--episodes-per-job N]] [--same-as <dir>]
 *
 * With --queue this process coordinates: workers (npm run worker) on any machine play the
 * episodes, and it plays none itself unless --workers asks for threads here too.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { teamName } from '../teams';
import { type RedisAddress, parseRedisAddress } from '../tournament/redis';
import { DEFAULT_EPISODES_PER_JOB } from '../tournament/jobs';
import { DEFAULT_LLM_CONCURRENCY, describeSettings, reportText, runTournament, tournamentSpec } from '../tournament/run';
import { planEpisodes } from '../tournament/plan';
import { nothingToCompare, readComparedRecords, sameAs, sameAsText } from '../tournament/sameAs';
import { CONCURRENCY_RANGE, EPISODES_RANGE, SEED_RANGE, UsageError, WORKERS_RANGE, integerOption, parseCommandLine, runCli } from './args';
import { TOURNAMENT } from './defaults';
import { commandPlatformSpec, withPlatform } from './platform';
import { ProgressBar } from './progress';
import { countOf } from '../sim';

const USAGE = `usage: npm run tournament -- --teams <a,b,c> --episodes <n per matchup> --out <dir> [--workers N] [--seed S] [--resume] [--llm-concurrency N] [--queue redis://host:port [--episodes-per-job N]] [--same-as <dir>]

  --queue              coordinate over this Redis: workers started with npm run worker play the
                       episodes (rediss:// for TLS; the password in the URL or HILLMIND_REDIS_PASSWORD)
  --workers            threads on this machine (default: one per core; with --queue, ${TOURNAMENT.queuedWorkers})
  --seed               the tournament's seed: each episode's is derived from it (default ${TOURNAMENT.seed})
  --llm-concurrency    episodes with a language model in flight at once (default ${DEFAULT_LLM_CONCURRENCY})
  --episodes-per-job   episodes in one queue job (default ${DEFAULT_EPISODES_PER_JOB}; 1 when a team talks to a language model)
  --same-as            another run's folder (or its episodes.jsonl, or a published episodes.jsonl.gz):
                       after playing, check that every episode both recorded ended in the same state
                       (its state hash), e.g. played on another machine, with LLM_CACHE=off or by
                       another version; exits 1 naming those that differ`;

/** "host:1 412 (51%), host:2 388 (49%)" */
function sharesText(shares: Readonly<Record<string, number>>): string {
  const total = Object.values(shares).reduce((s, n) => s + n, 0);
  if (total === 0) return 'waiting for workers';
  return Object.entries(shares)
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${n} (${Math.round((100 * n) / total)}%)`)
    .join(', ');
}

runCli(async () => {
  const { values } = parseCommandLine(
    {
      teams: { type: 'string' },
      episodes: { type: 'string' },
      out: { type: 'string' },
      workers: { type: 'string' },
      seed: { type: 'string' },
      resume: { type: 'boolean' },
      'llm-concurrency': { type: 'string' },
      queue: { type: 'string' },
      'episodes-per-job': { type: 'string' },
      'same-as': { type: 'string' },
    },
    USAGE,
  );
  if (!values.teams || !values.episodes || !values.out) throw new UsageError(`--teams, --episodes and --out are required\n\n${USAGE}`);
  const out = values.out;
  // Each team as its canonical name, so a variant is one entrant however its keys were ordered.
  const teams = values.teams
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean)
    .map((t) => {
      try {
        return teamName(t);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
    });
  const episodes = integerOption('episodes', values.episodes, 0, EPISODES_RANGE);
  const queued = values.queue !== undefined;
  if (!queued && values['episodes-per-job'] !== undefined) throw new UsageError('--episodes-per-job goes with --queue');
  // With a queue, threads here are optional (0: coordinate only); without one, at least one.
  const workers = queued
    ? integerOption('workers', values.workers, TOURNAMENT.queuedWorkers, { min: 0, max: WORKERS_RANGE.max })
    : integerOption('workers', values.workers, Math.min(availableParallelism(), WORKERS_RANGE.max), WORKERS_RANGE);
  const perJob = values['episodes-per-job'] === undefined ? undefined : integerOption('episodes-per-job', values['episodes-per-job'], 1, 10_000);
  if (perJob === 0) throw new UsageError('--episodes-per-job must be at least 1');
  const settings = { teams, episodes, seed: integerOption('seed', values.seed, TOURNAMENT.seed, SEED_RANGE) };
  const llmConcurrency = integerOption('llm-concurrency', values['llm-concurrency'], DEFAULT_LLM_CONCURRENCY, CONCURRENCY_RANGE);
  // Read before playing too, so a wrong path is said at once rather than after the run.
  const sameAsPath = values['same-as'];
  if (sameAsPath !== undefined) {
    const unmatched = nothingToCompare(planEpisodes(settings), readComparedRecords(sameAsPath), sameAsPath);
    if (unmatched) throw new UsageError(`--same-as: ${unmatched}`);
  }
  let redis: RedisAddress | undefined;
  if (queued) {
    try {
      redis = parseRedisAddress(values.queue!, process.env.HILLMIND_REDIS_PASSWORD);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }

  let bar: ProgressBar | null = null;
  const notice = (message: string) => process.stderr.write(`${process.stderr.isTTY ? '\n' : ''}${message}\n`);
  const started = performance.now();
  const here = countOf(workers, 'worker');
  const spec = tournamentSpec(commandPlatformSpec(), llmConcurrency, availableParallelism());
  const result = await withPlatform(spec, (platform) =>
    runTournament({
      settings,
      platform,
      out,
      workers,
      resume: Boolean(values.resume),
      llmConcurrency,
      onEvent: notice,
      ...(redis
        ? {
            queue: {
              redis,
              ...(perJob !== undefined ? { episodesPerJob: perJob } : {}),
              onEvent: notice,
            },
          }
        : {}),
      onResumed(done, total) {
        bar = new ProgressBar(total, 'episodes');
        bar.resumed(done, here);
      },
      // The records found come first, before any episode is played, so the bar exists by now.
      onProgress: (done, _total, shares) => bar!.update(done, shares ? `${redis!.shown}: ${sharesText(shares)}` : here),
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  (bar as ProgressBar | null)?.done(
    `${result.played} episodes played${result.skipped ? `, ${result.skipped} already recorded` : ''} in ${seconds.toFixed(1)} s (${(result.played / seconds).toFixed(1)} episodes/s)${result.queue ? `; by worker: ${sharesText(result.queue.shares)}` : ''}`,
  );
  console.log(`\n${describeSettings(settings)}\n`);
  console.log(reportText(result.summary));
  console.log(`\nrecords: ${join(values.out, 'episodes.jsonl')}\nreports: ${join(values.out, 'report.md')}, ${join(values.out, 'report.html')}`);
  if (sameAsPath !== undefined) {
    const report = sameAs(result.records, readComparedRecords(sameAsPath));
    console.log(`\n${sameAsText(report, sameAsPath)}`);
    if (report.compared === 0 || report.different.length > 0) return 1;
  }
});
