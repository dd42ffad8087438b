/**
 * npm run llm:exam: the strategist exam (src/llm/exam.ts) for the configured model (the
 * local engine, or a server via OPENAI_BASE_URL), a markdown table and JSON in --out.
 * npm run llm:exam -- --build-set: build the exam's set again from real matches.
 * npm run llm:exam -- --planner-consistency: how far the planner agrees with itself there.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ANSWER_FORMATS, type AnswerFormat, EXAM_SET_PATH, type ExamReport, SYSTEM_CLOCK, choiceDivergence, examMarkdown, parseExamSet, referenceRows, scoreExam, takeExam } from '../llm';
import { EXAM_PAIRS, buildExamSet, plannerLabeller } from '../match';
import { PERSONAS, personaByName } from '../teams';
import { consistencyMarkdown, plannerConsistency } from '../tune/consistency';
import { UsageError, integerOption, parseCommandLine, runCli } from './args';
import { LLM_EXAM } from './defaults';
import { commandPlatformSpec, withPlatform } from './platform';
import { ProgressBar } from './progress';

const BUILD_COMMAND = 'npm run llm:exam -- --build-set';

const USAGE = `usage: npm run llm:exam [-- --model <name>] [--format <${ANSWER_FORMATS.join('|')}>] [--personas <a,b,...>] [--limit <n>] [--set <file>] [--out <dir>]
  asks the configured language model (the local engine, or OPENAI_BASE_URL's server) every
  situation of the strategist exam and scores its choices against the rules: agreement and
  kappa (overall and where the current skill differs from the rules' choice), the same
  against the planner's choice (sets from v2), mutual information beyond the current skill,
  the most common answer, skill shares, latency.
  --model    another model (a pulled local one, or the server's model name)
  --format   the answer format (default: the settings', LLM_FORMAT)
  --personas take the exam once under each persona's play style (${PERSONAS.map((p) => p.name).join(', ')}),
             and say how far apart their choices lie (Jensen-Shannon divergence of skill shares)
  --limit    only the first n situations
  --set      the exam set (default ${EXAM_SET_PATH})
  --out      where the markdown and JSON go (default ${LLM_EXAM.out})
       npm run llm:exam -- --build-set [--size <n>] [--seeds <n>] [--set <file>]
  plays the exam's matches and writes the set again, each situation labelled by the rules
  and by the planner at its world (the same options give the same file).
  --size     situations in the set (default ${LLM_EXAM.size})
  --seeds    matches per pair of teams (default ${LLM_EXAM.seeds})
       npm run llm:exam -- --planner-consistency [--rollouts <n>] [--size <n>] [--seeds <n>] [--set <file>] [--out <dir>]
  plays the exam's matches again and asks the planner at each situation's world three more
  times: with another seed (how often a second draw of the teacher gives its label), and with
  more rollouts an option under two seeds (a steadier, costlier teacher); no language model.
  --rollouts the costlier planner's rollouts an option (default ${LLM_EXAM.consistencyRollouts})
  --size, --seeds as the set was built (the defaults above); the matches must give its situations back`;

runCli(async () => {
  const { values } = parseCommandLine(
    {
      model: { type: 'string' },
      format: { type: 'string' },
      personas: { type: 'string' },
      limit: { type: 'string' },
      set: { type: 'string' },
      out: { type: 'string' },
      'build-set': { type: 'boolean' },
      'planner-consistency': { type: 'boolean' },
      rollouts: { type: 'string' },
      size: { type: 'string' },
      seeds: { type: 'string' },
    },
    USAGE,
  );
  const setPath = values.set ?? EXAM_SET_PATH;
  if (values.rollouts !== undefined && !values['planner-consistency']) throw new UsageError('--rollouts goes with --planner-consistency');
  if (values['planner-consistency'] && values['build-set']) throw new UsageError('--planner-consistency and --build-set are two runs: give one');
  if (values['build-set']) {
    const size = integerOption('size', values.size, LLM_EXAM.size, { min: 10, max: 100_000 });
    const seeds = integerOption('seeds', values.seeds, LLM_EXAM.seeds, { min: 1, max: 1000 });
    const bar = new ProgressBar(EXAM_PAIRS.length * seeds, 'matches');
    let labels: ProgressBar | null = null;
    const set = await withPlatform(commandPlatformSpec(), (platform) =>
      buildExamSet(platform, {
        size,
        seeds,
        every: 25,
        command: `${BUILD_COMMAND}${values.size ? ` --size ${size}` : ''}${values.seeds ? ` --seeds ${seeds}` : ''}`,
        planner: plannerLabeller(platform),
        onMatch: (done, total) => bar.update(done, `${done} of ${total} matches`),
        onLabel: (done, total) => (labels ??= new ProgressBar(total, 'situations')).update(done, `the planner: ${done} of ${total} situations`),
      }),
    );
    writeFileSync(setPath, `${JSON.stringify(set, null, 1)}\n`);
    const held = set.items.filter((i) => i.situation.agents.some((a, s) => a.alive && i.current[s] !== i.rules[s])).length;
    const agree = set.items.filter((i) => i.planner?.join() === i.rules.join()).length;
    console.log(`wrote ${setPath}: ${set.items.length} situations (${held} with an agent whose current skill differs from the rules' choice; in ${agree} the planner chose as the rules) from ${set.built.matches.length} matches`);
    return 0;
  }

  if (values['planner-consistency']) {
    const set = parseExamSet(readSet(setPath), setPath);
    if (set.items.some((i) => !i.planner)) throw new UsageError(`${setPath} is a v1 set without the planner's labels: ${BUILD_COMMAND} builds a v2 set`);
    const seeds = integerOption('seeds', values.seeds, LLM_EXAM.seeds, { min: 1, max: 1000 });
    const bar = new ProgressBar(EXAM_PAIRS.length * seeds, 'matches');
    let labels: ProgressBar | null = null;
    const consistency = await withPlatform(commandPlatformSpec(), (platform) =>
      plannerConsistency(platform, set, {
        size: integerOption('size', values.size, LLM_EXAM.size, { min: 10, max: 100_000 }),
        seeds,
        rollouts: integerOption('rollouts', values.rollouts, LLM_EXAM.consistencyRollouts, { min: 1, max: 64 }),
        onMatch: (done, total) => bar.update(done, `${done} of ${total} matches`),
        onLabel: (done, total) => (labels ??= new ProgressBar(total, 'situations')).update(done, `the planner, three more times: ${done} of ${total} situations`),
      }),
    );
    const out = values.out ?? LLM_EXAM.out;
    mkdirSync(out, { recursive: true });
    const markdown = consistencyMarkdown(consistency);
    writeFileSync(join(out, 'planner-consistency.md'), `${markdown}\n`);
    writeFileSync(join(out, 'planner-consistency.json'), `${JSON.stringify(consistency, null, 1)}\n`);
    console.log(`${markdown}\n\nwritten to ${join(out, 'planner-consistency.md')} and planner-consistency.json`);
    return 0;
  }

  if (values.format !== undefined && !(ANSWER_FORMATS as readonly string[]).includes(values.format)) {
    throw new UsageError(`--format must be one of ${ANSWER_FORMATS.join(', ')}, got '${values.format}'`);
  }
  const full = parseExamSet(readSet(setPath), setPath);
  const limit = integerOption('limit', values.limit, full.items.length, { min: 1, max: full.items.length });
  const set = { ...full, items: full.items.slice(0, limit) };

  const personas = (values.personas ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  for (const name of personas) if (!personaByName(name)) throw new UsageError(`--personas: unknown persona '${name}' (${PERSONAS.map((p) => p.name).join(', ')})`);
  if (personas.length === 1) throw new UsageError('--personas needs two or more personas to compare');
  const out = values.out ?? LLM_EXAM.out;
  mkdirSync(out, { recursive: true });

  const reports = await withPlatform(commandPlatformSpec(), async (platform) => {
    // Asked in another format than the model's own, a local model runs without the adapter taught that one.
    const choice = { ...(values.model ? { model: values.model } : {}), ...(values.format ? { format: values.format as AnswerFormat } : {}) };
    const access = Object.keys(choice).length ? (platform.llm.withModel?.(choice) ?? platform.llm) : platform.llm;
    const connection = await access.connect();
    const asked = (values.format as AnswerFormat | undefined) ?? connection.settings.format;
    const taken: ExamReport[] = [];
    for (const persona of personas.length ? personas : [undefined]) {
      const bar = new ProgressBar(set.items.length, 'situations');
      const given = await takeExam(set, connection.client, {
        format: asked,
        temperature: connection.settings.temperature,
        clock: SYSTEM_CLOCK,
        ...(persona ? { style: personaByName(persona)!.prompt } : {}),
        onProgress: (done, total) => bar.update(done, `${persona ? `${persona}: ` : ''}${done} of ${total} situations`),
      });
      bar.done(`${set.items.length} situations answered`);
      taken.push({
        format: 'hillmind-strategist-exam-report',
        set: { version: full.version, situations: set.items.length },
        model: connection.client.model,
        provider: connection.provider,
        answerFormat: asked,
        ...(persona ? { persona } : {}),
        scores: scoreExam(set, given),
        references: referenceRows(set),
        answers: given.map((a, i) => ({ id: set.items[i]!.id, ...a })),
      });
    }
    return taken;
  });
  for (const report of reports) {
    const name = `exam-${report.model.replace(/[^A-Za-z0-9._-]+/g, '_')}-${report.answerFormat}${report.persona ? `-${report.persona}` : ''}`;
    const markdown = examMarkdown(report);
    writeFileSync(join(out, `${name}.md`), `${markdown}\n`);
    writeFileSync(join(out, `${name}.json`), `${JSON.stringify(report, null, 1)}\n`);
    console.log(`${markdown}\n\nwritten to ${join(out, `${name}.md`)} and ${name}.json\n`);
  }
  if (reports.length > 1) {
    console.log('How far apart the personas\' choices lie (Jensen-Shannon divergence of skill shares, bits):\n');
    console.log('| persona | persona | divergence |\n|---|---|---|');
    for (const [i, a] of reports.entries()) for (const b of reports.slice(i + 1)) console.log(`| ${a.persona} | ${b.persona} | ${choiceDivergence(a.scores.skillShares, b.scores.skillShares).toFixed(3)} |`);
  }
  return 0;
});

function readSet(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read the exam set ${path}: ${(err as Error).message} (${BUILD_COMMAND} builds it)`);
  }
}
