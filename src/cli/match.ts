/**
 * npm run match -- --blue <team> --red <team> --seed <n> [--json] [--replay <file>]
 * npm run match -- --verify <file>
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { formatSummary, parseReplay, runMatch, verifyReplay } from '../match';
import { TEAM_IDS, teamEntry } from '../teams';
import { UsageError, integerOption, parseCommandLine, runCli } from './args';

const USAGE = `usage: npm run match -- --blue <team> --red <team> [--seed <n>] [--json] [--replay <file>]
       npm run match -- --verify <replay file>
teams: ${TEAM_IDS.join(', ')}`;

runCli(async () => {
  const { values } = parseCommandLine(
    {
      blue: { type: 'string' },
      red: { type: 'string' },
      seed: { type: 'string' },
      json: { type: 'boolean' },
      replay: { type: 'string' },
      verify: { type: 'string' },
      help: { type: 'boolean' },
    },
    USAGE,
  );
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.verify) {
    let text: string;
    try {
      text = readFileSync(values.verify, 'utf8');
    } catch (err) {
      throw new Error(`cannot read ${values.verify}: ${(err as Error).message}`);
    }
    const result = verifyReplay(parseReplay(text, values.verify));
    if (values.json) console.log(JSON.stringify(result));
    else if (result.ok) console.log(`replay verified: ${result.ticks} ticks, final hash ${result.actualHash}`);
    else console.log(`replay MISMATCH: expected ${result.expectedHash}, got ${result.actualHash} after ${result.ticks} ticks`);
    return result.ok ? 0 : 1;
  }
  if (!values.blue || !values.red) throw new UsageError(`--blue and --red are required\n\n${USAGE}`);
  for (const id of [values.blue, values.red]) {
    try {
      teamEntry(id);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  const seed = integerOption('seed', values.seed, 1);
  const match = await runMatch({ blue: values.blue, red: values.red, seed }, { record: Boolean(values.replay) });
  const summary = match.summary();
  if (values.replay) writeFileSync(values.replay, JSON.stringify(match.replay()));
  console.log(values.json ? JSON.stringify(summary, null, 2) : formatSummary(summary));
  if (values.replay && !values.json) console.log(`replay written to ${values.replay}`);
  return 0;
});
