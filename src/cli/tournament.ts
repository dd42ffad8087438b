/**
 * npm run tournament -- --teams <a,b,c> --episodes <n per matchup> --out <dir>
 *                       [--workers N] [--seed S] [--resume] [--llm-concurrency N]
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describeSettings, reportText, runTournament } from '../tournament/run';
import { CONCURRENCY_RANGE, EPISODES_RANGE, SEED_RANGE, UsageError, WORKERS_RANGE, integerOption, parseCommandLine, runCli } from './args';
import { ProgressBar } from './progress';

const USAGE =
  'usage: npm run tournament -- --teams <a,b,c> --episodes <n per matchup> --out <dir> [--workers N] [--seed S] [--resume] [--llm-concurrency N]';

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
      help: { type: 'boolean', short: 'h' },
    },
    USAGE,
  );
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (!values.teams || !values.episodes || !values.out) throw new UsageError(`--teams, --episodes and --out are required\n\n${USAGE}`);
  const teams = values.teams.split(',').map((t) => t.trim()).filter(Boolean);
  const episodes = integerOption('episodes', values.episodes, 0, EPISODES_RANGE);
  const workers = integerOption('workers', values.workers, Math.min(availableParallelism(), WORKERS_RANGE.max), WORKERS_RANGE);
  const settings = { teams, episodes, seed: integerOption('seed', values.seed, 1, SEED_RANGE) };
  const llmConcurrency = integerOption('llm-concurrency', values['llm-concurrency'], 8, CONCURRENCY_RANGE);

  let bar: ProgressBar | null = null;
  const started = performance.now();
  const result = await runTournament({
    settings,
    platform: { env: { ...process.env } },
    out: values.out,
    workers,
    resume: Boolean(values.resume),
    llmConcurrency,
    onProgress(done, total) {
      bar ??= new ProgressBar(total, 'episodes');
      bar.update(done, `${workers} worker${workers > 1 ? 's' : ''}`);
    },
  });
  const seconds = (performance.now() - started) / 1000;
  (bar as ProgressBar | null)?.done(
    `${result.played} episodes played${result.skipped ? `, ${result.skipped} already recorded` : ''} in ${seconds.toFixed(1)} s (${(result.played / seconds).toFixed(1)} episodes/s)`,
  );
  console.log(`\n${describeSettings(settings)}\n`);
  console.log(reportText(result.summary));
  console.log(`\nrecords: ${join(values.out, 'episodes.jsonl')}\nreports: ${join(values.out, 'report.md')}, ${join(values.out, 'report.html')}`);
});
