/**
 * npm run bench [-- --seconds <s per figure>] [--only <section,...>]: every performance figure
 * of the product in one run (or the sections named), each beside its target and the ratio to it.
 */
import { SECTIONS, runBench } from '../bench/run';
import type { NodePlatform } from '../teams/nodePlatform';
import { modelDirFrom } from '../skills/nodeModels';
import { redisServerPath } from '../tournament/localRedis';
import { UsageError, integerOption, parseCommandLine, runCli } from './args';
import { BENCH } from './defaults';
import { commandPlatformSpec, withPlatform } from './platform';

const USAGE = `usage: npm run bench [-- --seconds <n>] [--only <section,...>]
  --seconds  how long each figure is measured (default ${BENCH.seconds})
  --only     the sections to run (default all): ${SECTIONS.join(', ')} (local-llm, exam and llm-proxy's flood rows need npm run llm:pull)`;

runCli(async () => {
  const { values } = parseCommandLine({ seconds: { type: 'string' }, only: { type: 'string' } }, USAGE);
  const seconds = integerOption('seconds', values.seconds, BENCH.seconds);
  const only = values.only?.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = only?.filter((s) => !(SECTIONS as readonly string[]).includes(s));
  if (unknown?.length) throw new UsageError(`--only: unknown section ${unknown.join(', ')}\n\n${USAGE}`);
  await withPlatform(commandPlatformSpec(), async (platform: NodePlatform) => {
    await runBench({ seconds, only, modelDir: modelDirFrom(process.env), redisServer: redisServerPath(process.env) }, platform, (line) => console.log(line));
  });
});
