/**
 * npm run match -- --blue <team> --red <team> --seed <n> [--json] [--replay <file>]
 * npm run match -- --verify <file>
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { type LlmTeamReport, formatCounters } from '../llm';
import { formatSummary, formatVerification, parseReplay, runMatch, verifyReplayWithModels } from '../match';
import { PLANNER_OPPONENTS, PLANNER_SEARCHES, TEAM_IDS, llmStrategistOf, plannerDefaultsText, resolveTeam } from '../teams';
import { SEED_RANGE, UsageError, integerOption, parseCommandLine, runCli } from './args';
import { commandPlatformSpec, llmFlagsOf, withPlatform } from './platform';

const USAGE = `usage: npm run match -- --blue <team> --red <team> [--seed <n>] [--json] [--replay <file>]
         [--llm-timing <realtime|ticks:N|lockstep>] [--llm-cache <use|refresh|off>]
       npm run match -- --verify <replay file>
teams: ${TEAM_IDS.join(', ')}, or a variant id:key=value[:key=value...] such as bt:persona=cautious or llm:format=json:rate=0
planner: ${plannerDefaultsText()} (horizon and every in seconds; opponent: ${PLANNER_OPPONENTS.join(', ')}; search: ${PLANNER_SEARCHES.join(', ')})`;

runCli(async () => {
  const { values } = parseCommandLine(
    {
      blue: { type: 'string' },
      red: { type: 'string' },
      seed: { type: 'string' },
      json: { type: 'boolean' },
      replay: { type: 'string' },
      verify: { type: 'string' },
      'llm-timing': { type: 'string' },
      'llm-cache': { type: 'string' },
    },
    USAGE,
  );
  if (values.verify) {
    let text: string;
    try {
      text = readFileSync(values.verify, 'utf8');
    } catch (err) {
      throw new Error(`cannot read ${values.verify}: ${(err as Error).message}`);
    }
    const replay = parseReplay(text, values.verify);
    const result = await withPlatform(commandPlatformSpec(), (platform) => verifyReplayWithModels(replay, { models: platform.models }));
    if (values.json) console.log(JSON.stringify(result));
    else console.log(formatVerification(replay, result));
    return result.ok ? 0 : 1;
  }
  if (!values.blue || !values.red) throw new UsageError(`--blue and --red are required\n\n${USAGE}`);
  for (const id of [values.blue, values.red]) {
    try {
      resolveTeam(id);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  const seed = integerOption('seed', values.seed, 1, SEED_RANGE);
  const spec = commandPlatformSpec(llmFlagsOf(values));
  // runMatch closes the teams (a strategist's call still out is ended) before the platform frees the model they ask.
  const { match, llm } = await withPlatform(spec, async (platform) => {
    const played = await runMatch({ blue: values.blue!, red: values.red!, seed }, { platform, record: Boolean(values.replay) });
    // The language-model strategists' model, provider and counters, when an llm team played.
    const reports: Record<string, LlmTeamReport> = {};
    for (const [name, controller] of [['blue', played.controllers[0]], ['red', played.controllers[1]]] as const) {
      const strategist = llmStrategistOf(controller);
      if (strategist) reports[name] = strategist.report();
    }
    return { match: played, llm: reports };
  });
  const summary = match.summary();
  if (values.replay) {
    // A replay may go into a folder that does not exist yet (results/r.json on a fresh clone).
    mkdirSync(dirname(values.replay), { recursive: true });
    writeFileSync(values.replay, JSON.stringify(match.replay()));
  }
  const played = Object.keys(llm).length > 0;
  if (values.json) console.log(JSON.stringify(played ? { ...summary, llm } : summary, null, 2));
  else {
    console.log(formatSummary(summary));
    for (const [name, stats] of Object.entries(llm)) console.log(`\n${formatCounters(`llm ${name}`, stats)}`);
  }
  if (values.replay && !values.json) console.log(`replay written to ${values.replay}`);
  return 0;
});
