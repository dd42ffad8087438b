/**
 * npm run bench [-- --seconds <s per figure>]: every performance figure of the product in
 * one run, each beside its target and the ratio to it.
 */
import { type BenchRow, benchMatches, benchStep } from '../match/benchmarks';
import { integerOption, parseCommandLine, runCli } from './args';

const USAGE = 'usage: npm run bench [-- --seconds <n>]';

function formatRow(row: BenchRow): string {
  const value = row.value >= 1000 ? Math.round(row.value).toLocaleString('en-US') : row.value.toFixed(3);
  let target = '';
  if (row.target !== undefined) {
    const ratio = row.lowerIsBetter ? row.target / row.value : row.value / row.target;
    const goal = row.target >= 1000 ? row.target.toLocaleString('en-US') : String(row.target);
    target = `target ${row.lowerIsBetter ? '<=' : '>='} ${goal}  ratio ${ratio.toFixed(2)}x ${ratio >= 1 ? 'ok' : 'BELOW TARGET'}`;
  }
  return `${row.name.padEnd(44)} ${value.padStart(14)} ${row.unit.padEnd(14)} ${target}`;
}

runCli(async () => {
  const { values } = parseCommandLine({ seconds: { type: 'string' } }, USAGE);
  const seconds = integerOption('seconds', values.seconds, 3);
  const sections: [string, () => BenchRow[] | Promise<BenchRow[]>][] = [
    ['simulation', () => benchStep(seconds)],
    ['matches (one core, no rendering)', async () => [
      ...(await benchMatches('bt-scripted', 'heuristic', seconds)),
      ...(await benchMatches('heuristic', 'heuristic', seconds)),
    ]],
  ];
  console.log(`Hillmind benchmarks (node ${process.version}, ${seconds} s per figure)`);
  for (const [title, run] of sections) {
    console.log(`\n## ${title}`);
    for (const row of await run()) console.log(formatRow(row));
  }
});
