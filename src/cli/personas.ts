/**
 * npm run personas -- [--propose N] [--episodes N] [--seed S] [--threshold T] [--out <file.json>]
 *
 * Profiles the persona library and proposes new tree personas, keeping those that add
 * behavioural coverage (src/tournament/personaSearch.ts); prints each kept persona's
 * behaviour and the variant that plays it, and writes them as JSON with --out.
 */
import { writeFileSync } from 'node:fs';
import { num, pct } from '../report/format';
import { SKILL_IDS } from '../skills';
import { BEHAVIOUR_THRESHOLD } from '../tournament/behaviour';
import { searchPersonas } from '../tournament/personaSearch';
import { UsageError, integerOption, parseCommandLine, runCli } from './args';
import { PERSONAS } from './defaults';
import { commandPlatformSpec, withPlatform } from './platform';
import { ProgressBar } from './progress';

const USAGE = `usage: npm run personas -- [--propose N] [--episodes N] [--seed S] [--threshold T] [--out <file.json>]

  --propose   new personas to propose (default ${PERSONAS.propose})
  --episodes  episodes each persona plays against the heuristic team to be profiled (default ${PERSONAS.episodes})
  --seed      the search's seed (default ${PERSONAS.seed})
  --threshold the behaviour distance in bits a proposal must keep from every kept persona (default ${BEHAVIOUR_THRESHOLD})
  --out       write the kept personas, their behaviour and coverage as JSON
  -h, --help  this text`;

runCli(async () => {
  const { values } = parseCommandLine(
    { propose: { type: 'string' }, episodes: { type: 'string' }, seed: { type: 'string' }, threshold: { type: 'string' }, out: { type: 'string' } },
    USAGE,
  );
  const proposals = integerOption('propose', values.propose, PERSONAS.propose, 1000);
  const episodes = Math.max(1, integerOption('episodes', values.episodes, PERSONAS.episodes, 1000));
  const seed = integerOption('seed', values.seed, PERSONAS.seed, 0xffffffff);
  const threshold = values.threshold === undefined ? undefined : Number(values.threshold);
  if (threshold !== undefined && !(/^\d+(\.\d+)?$/.test(values.threshold!) && threshold > 0 && threshold <= 1)) {
    throw new UsageError(`--threshold must be a number of bits above 0 and at most 1, got '${values.threshold}'`);
  }
  let bar: ProgressBar | null = null;
  const result = await withPlatform(commandPlatformSpec(), (platform) =>
    searchPersonas({
      platform,
      proposals,
      episodes,
      seed,
      ...(threshold !== undefined ? { threshold } : {}),
      onProgress(done, total) {
        bar ??= new ProgressBar(total, 'personas');
        bar.update(done, `${episodes} episodes each`);
      },
    }),
  );
  (bar as ProgressBar | null)?.done(`${result.kept.length} personas kept, ${result.rejected} proposals added no coverage`);
  console.log(`\n${'persona'.padEnd(14)}${SKILL_IDS.map((s) => s.slice(0, 6).padStart(7)).join('')}  switch/min  places(bits)  novelty  variant`);
  for (const k of result.kept) {
    const p = k.profile;
    const shares = SKILL_IDS.map((_, i) => pct(p.skillShare?.[i] ?? 0, 0).padStart(7)).join('');
    console.log(`${k.persona.name.padEnd(14)}${shares}  ${num(p.switchesPerMinute ?? 0, 1).padStart(10)}  ${num(p.heatmapEntropyBits).padStart(12)}  ${num(k.novelty, 3).padStart(7)}  ${k.variant}`);
  }
  console.log(`\ncoverage: ${result.coverageBefore} distinct behaviours in the library, ${result.coverageAfter} with the kept proposals (threshold ${result.threshold} bits)`);
  if (values.out) {
    writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`written to ${values.out}`);
  }
  return 0;
});
