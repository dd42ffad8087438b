/**
 * npm run reproduce -- [--episodes N] [--ablation-episodes N] [--plan-episodes N] [--out <dir>] [--workers N]
 *                      [--llm-timing <lockstep|ticks:N|realtime>] [--llm-cache use|refresh|off] [--no-ablations]
 *                      [--cache-sample <dir>] [--publish <dir>]
 *
 * The study's three matchups, the planner against bt and flat, the best constant plan and the
 * ablations the study lacked, on the configured language model
 * (src/tournament/reproduce.ts); writes reproduction.md, reproduction.json and the plots
 * to --out. A killed run resumes where it stopped when run again with the same options.
 * --publish copies a finished run's report and records beside the docs (src/tournament/publish.ts).
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CACHE_MODE, llmSettingsOf, otherAdaptersOf, runsAdapter } from '../llm';
import { pct } from '../report/format';
import { NOTES_HEADING, RECORDS_DIR, checkPublishTarget, publishReproduction } from '../tournament/publish';
import { allRows, reproduce } from '../tournament/reproduce';
import { readComparedRecords } from '../tournament/sameAs';
import { DEFAULT_LLM_CONCURRENCY, tournamentSpec } from '../tournament/run';
import { UsageError, integerOption, parseCommandLine, runCli } from './args';
import { REPRODUCE } from './defaults';
import { commandPlatformSpec, llmFlagsOf, withPlatform } from './platform';
import { ProgressBar } from './progress';

const USAGE = `usage: npm run reproduce -- [--episodes N] [--ablation-episodes N] [--plan-episodes N] [--out <dir>] [--workers N] [--llm-concurrency N]
                            [--llm-timing <lockstep|ticks:N|realtime>] [--llm-cache <use|refresh|off>] [--no-ablations]
                            [--cache-sample <dir>] [--publish <dir>]

  --episodes        episodes per study matchup (default ${REPRODUCE.episodes}, the study's)
  --ablation-episodes episodes per ablation row (default: --episodes)
  --plan-episodes   episodes each constant plan plays against the tree (default: --ablation-episodes)
  --out             where the runs and the report go (default ${REPRODUCE.out})
  --workers         worker threads (default one per core)
  --llm-concurrency llm episodes in flight at once (default ${DEFAULT_LLM_CONCURRENCY})
  --llm-timing      when an answer applies (default ${REPRODUCE.timing.kind}: the study's, as if the model answered at once)
  --llm-cache       the decision cache (default ${DEFAULT_CACHE_MODE})
  --no-ablations    no ablations: the study's three matchups, the planner's two and the constant plans only
  --cache-sample    a tournament folder of bt vs llm episodes played with LLM_CACHE=off (npm run tournament --
                    --teams bt,llm --episodes 200 ...): the report says whether each ended as in the bt vs llm row
  --publish         once the run is whole, its report into <dir>/reproduction.md (notes under "${NOTES_HEADING}"
                    there kept), its plots beside it and its records, gzipped, into <dir>/${RECORDS_DIR} (e.g. docs)
  -h, --help        this text`;

/** The checkout's commit, with "+changes" where the working tree differs from it; undefined outside git. */
function sourceCommit(): string | undefined {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const changed = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() !== '';
    return changed ? `${commit}+changes` : commit;
  } catch {
    return undefined;
  }
}

runCli(async () => {
  const argv = process.argv.slice(2);
  const { values } = parseCommandLine(
    {
      episodes: { type: 'string' },
      'ablation-episodes': { type: 'string' },
      'plan-episodes': { type: 'string' },
      out: { type: 'string' },
      workers: { type: 'string' },
      'llm-concurrency': { type: 'string' },
      'llm-timing': { type: 'string' },
      'llm-cache': { type: 'string' },
      'no-ablations': { type: 'boolean' },
      'cache-sample': { type: 'string' },
      publish: { type: 'string' },
    },
    USAGE,
  );
  const episodes = integerOption('episodes', values.episodes, REPRODUCE.episodes, 100_000);
  if (episodes < 1) throw new UsageError('--episodes must be at least 1');
  const ablationEpisodes = integerOption('ablation-episodes', values['ablation-episodes'], episodes, 100_000);
  if (ablationEpisodes < 1) throw new UsageError('--ablation-episodes must be at least 1');
  const planEpisodes = integerOption('plan-episodes', values['plan-episodes'], ablationEpisodes, 100_000);
  if (planEpisodes < 1) throw new UsageError('--plan-episodes must be at least 1');
  const workers = Math.max(1, integerOption('workers', values.workers, availableParallelism(), 64));
  const flags = llmFlagsOf(values, REPRODUCE.timing);
  const out = values.out ?? REPRODUCE.out;
  const publish = values.publish;
  if (publish !== undefined) checkPublishTarget(out, publish);
  const llmConcurrency = Math.max(1, integerOption('llm-concurrency', values['llm-concurrency'], DEFAULT_LLM_CONCURRENCY, 256));
  // One platform for every row: one local engine, loaded once and freed at the end.
  const cores = availableParallelism();
  const spec = tournamentSpec(commandPlatformSpec(flags), llmConcurrency, cores);
  // The rows that run two engines (an adapter against the model alone or another) give each
  // half the cores where LLM_THREADS sets nothing: on 2 cores, two engines of 2 threads played
  // about 16 episodes an hour, of 1 thread each about 2 a minute (docs/llm.md, LLM_THREADS).
  const twoEngineSpec = tournamentSpec(commandPlatformSpec(flags), llmConcurrency, Math.max(1, Math.floor(cores / 2)));
  // The sample is read before anything plays, so a wrong folder is said at once.
  if (values['cache-sample'] !== undefined) readComparedRecords(values['cache-sample']);
  const commit = sourceCommit();
  const settings = llmSettingsOf(spec.llm);
  const tuned = runsAdapter(settings);
  let bar: ProgressBar | null = null;
  const result = await withPlatform(spec, (platform) =>
    withPlatform(twoEngineSpec, async (twoEnginePlatform) =>
      reproduce({
        episodes,
        ablationEpisodes,
        planEpisodes,
        tuned,
        otherAdapters: otherAdaptersOf(settings),
        out,
        platform,
        twoEnginePlatform,
        workers,
        llmConcurrency,
        ablations: !values['no-ablations'],
        ...(values['cache-sample'] !== undefined ? { cacheSample: values['cache-sample'] } : {}),
        command: ['npm run reproduce --', ...argv].join(' '),
        ...(commit ? { commit } : {}),
        // What the report says of the model is what the tournaments load.
        llm: await platform.llm.availability(),
        onResumed(done, total, row) {
          bar ??= new ProgressBar(total, 'episodes');
          bar.resumed(done, row);
        },
        // Each row reports the records it found before it plays, so the bar exists by now.
        onProgress: (done, _total, row) => bar!.update(done, row),
      }),
    ),
  );
  const rows = allRows(result);
  (bar as ProgressBar | null)?.done(`${rows.length} matchups`);
  for (const m of rows) {
    const share = (n: number) => pct(n / Math.max(1, m.episodes));
    console.log(`${m.name.padEnd(44)} ${share(m.firstWins).padStart(6)} / ${share(m.secondWins).padStart(6)} / draws ${share(m.draws).padStart(6)}${m.study ? `   (study ${pct(m.study.firstWins)} / ${pct(m.study.secondWins)} / ${pct(m.study.draws)})` : ''}`);
  }
  console.log(`\nreport: ${join(out, 'reproduction.md')}, ${join(out, 'reproduction.json')}`);
  if (publish !== undefined) {
    const published = publishReproduction(out, publish);
    console.log(`published: ${published.report}, and the records of its ${published.rows} rows, gzipped, in ${published.records}`);
    if (published.keptNotes) console.log(`kept the notes under "${NOTES_HEADING}" of the report published before: read them against the new figures`);
  }
  return 0;
});
