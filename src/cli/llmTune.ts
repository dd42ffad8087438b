/**
 * npm run llm:tune: teach the local model to play. Parses the options, builds what the
 * stages run on (platforms, the base model's tokenizer, the tuner's Python) and calls
 * src/tune/pipeline.ts tuneAdapter, which says what each stage does.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAM_SET_PATH, llmSettingsOf, parseExamSet, withEngine } from '../llm';
import { cardPathOf } from '../llm/node/adapterCard';
import { sha256File } from '../llm/node/digest';
import { LlamaChatClient } from '../llm/node/llamaClient';
import { LocalEngine } from '../llm/node/localEngine';
import { LOCAL_MODELS, engineFile, ggufModelName, shippedAdapterPath } from '../llm/localModels';
import { num } from '../report/format';
import { CARD_OPPONENTS, PLAY_LABELS, PLAY_OPPONENTS, type PlayLabels, type TuneProgress, tuneAdapter } from '../tune/pipeline';
import { TEACHER_HELP, parseTeacher } from '../tune/teachers';
import { DEFAULT_TUNER, TUNE_SETUP_HELP, TUNE_VENV, type TunerSettings, defaultPython, runTuner, setupTuner } from '../tune/tuner';
import { UsageError, integerOption, parseCommandLine, runCli } from './args';
import { LLM_TUNE } from './defaults';
import { commandPlatformSpec, withPlatform } from './platform';
import { ProgressBar, StatusLine } from './progress';

const DEFAULT_OUT = shippedAdapterPath(LOCAL_MODELS['gemma3-270m']!)!;
/**
 * The rules, and the personas (so a style in the prompt moves the choices): the rules-taught
 * adapter (models/strategist-gemma3-270m-rules.gguf), which the shipped one was taught from by
 * the planner (--from; its card's reproduce names the whole command).
 */
const DEFAULT_TEACHERS = ['rules', 'personas'];
/** Where each adapter's stages keep their results, in a folder named after it. */
const WORK_ROOT = join('.cache', 'tune');
/** The tuner's settings a flag of the same name sets. */
const TUNER_OPTIONS = ['steps', 'batch', 'layers', 'rank', 'lr', 'threads'] as const;

const USAGE = `usage: npm run llm:tune [-- --teacher <t>]... [--out <file>] [--work <dir>] [options]
  teaches the local model (Gemma 3 270M) to choose skills as a teacher does: writes a LoRA
  adapter (GGUF) and its card (.json beside it), judged by the strategist exam and games.
  --teacher       ${TEACHER_HELP} (default ${DEFAULT_TEACHERS.join(' and ')}, as the rules-taught adapter
                  the shipped one starts from; repeat to mix)
  --format        the prompt it is taught: terse (the state in one-token codes, a quarter of the
                  tokens to read per decision) or compact (the state in words) (default ${LLM_TUNE.format})
  --size          situations the rules, personas and planner teachers take from real play (default ${LLM_TUNE.size})
  --seeds         matches per team pair they play (default ${LLM_TUNE.seeds})
  ${TUNER_OPTIONS.map((k) => `--${k}`).join(', ')}   the tuner's settings (python/tune/tune_strategist.py;
                  default ${TUNER_OPTIONS.map((k) => `${k} ${DEFAULT_TUNER[k]}`).join(', ')})
  --out           the adapter to write (default ${DEFAULT_OUT}, the one the product loads: a run
                  without --out replaces it; the shipped card's reproduce names how it was made)
  --work          where the stages keep their results (default ${join(WORK_ROOT, "<out's name>")})
  --exam-limit    exam only the first n situations (default all)
  --games         games per opponent for the card (${CARD_OPPONENTS.join(', ')}; default ${LLM_TUNE.games})
  --play-games    the round of learning from play: games per opponent (${PLAY_OPPONENTS.join(', ')}) with
                  sampled decisions; 0 skips the round (default ${LLM_TUNE.playGames})
  --play-temperature  the round's sampling temperature (default ${LLM_TUNE.playTemperature})
  --play-labels   what the round teaches: won (the model's own decisions in the games it won),
                  rules (the rules' choices on every situation it asked about, won or lost: DAgger)
                  or planner (the planner's choice at the world of every situation it asked about,
                  rebuilt from the game's replay: expert iteration) (default ${LLM_TUNE.playLabels});
                  a stopped run resumes its rounds from --work
  --play-rounds   rounds of learning from play, each playing with the adapter kept so far and
                  taught every round's lessons so far (default ${LLM_TUNE.playRounds})
  --from          an adapter to start from instead of the base model (the same --layers and
                  --rank): a teacher that searches improves on the adapter that copied the rules,
                  e.g. --teacher planner --from models/strategist-gemma3-270m-rules.gguf
  --python        the Python that runs the tuner (default ${join(TUNE_VENV, 'bin', 'python')})
  --setup         install the tuner's packages into ${TUNE_VENV} and stop
  ${TUNE_SETUP_HELP}`;

const float = (name: string, text: string | undefined, fallback: number) => {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new UsageError(`--${name} must be a positive number, got '${text}'`);
  return value;
};

runCli(async () => {
  const { values } = parseCommandLine(
    {
      teacher: { type: 'string', multiple: true },
      format: { type: 'string' },
      size: { type: 'string' },
      seeds: { type: 'string' },
      steps: { type: 'string' },
      batch: { type: 'string' },
      layers: { type: 'string' },
      rank: { type: 'string' },
      lr: { type: 'string' },
      threads: { type: 'string' },
      out: { type: 'string' },
      work: { type: 'string' },
      'exam-limit': { type: 'string' },
      games: { type: 'string' },
      'play-games': { type: 'string' },
      'play-temperature': { type: 'string' },
      'play-labels': { type: 'string' },
      'play-rounds': { type: 'string' },
      from: { type: 'string' },
      python: { type: 'string' },
      setup: { type: 'boolean' },
    },
    USAGE,
  );
  if (values.setup) {
    const python = await setupTuner((line) => console.log(line));
    console.log(`the tuner is ready: ${python}`);
    return 0;
  }
  const python = values.python ?? defaultPython();
  if (!python) throw new UsageError(`no Python for the tuner: ${TUNE_SETUP_HELP}`);
  const out = values.out ?? DEFAULT_OUT;
  if (!out.endsWith('.gguf')) throw new UsageError(`--out must be a .gguf file, got '${out}'`);
  const work = values.work ?? join(WORK_ROOT, ggufModelName(out));
  const tuner: TunerSettings = {
    ...DEFAULT_TUNER,
    steps: integerOption('steps', values.steps, DEFAULT_TUNER.steps, { min: 1, max: 1_000_000 }),
    batch: integerOption('batch', values.batch, DEFAULT_TUNER.batch, { min: 1, max: 1024 }),
    layers: integerOption('layers', values.layers, DEFAULT_TUNER.layers, { min: 1, max: 64 }),
    rank: integerOption('rank', values.rank, DEFAULT_TUNER.rank, { min: 1, max: 256 }),
    lr: float('lr', values.lr, DEFAULT_TUNER.lr),
    threads: integerOption('threads', values.threads, DEFAULT_TUNER.threads, { min: 1, max: 256 }),
    ...(values.from !== undefined ? { init: adapterToStartFrom(values.from) } : {}),
  };
  const format = values.format ?? LLM_TUNE.format;
  if (format !== 'terse' && format !== 'compact') throw new UsageError(`--format must be terse or compact (the answers the engine scores), got '${format}'`);
  const size = integerOption('size', values.size, LLM_TUNE.size, { min: 10, max: 100_000 });
  const seeds = integerOption('seeds', values.seeds, LLM_TUNE.seeds, { min: 1, max: 10_000 });
  const cardGames = integerOption('games', values.games, LLM_TUNE.games, { min: 0, max: 100_000 });
  const playGames = integerOption('play-games', values['play-games'], LLM_TUNE.playGames, { min: 0, max: 100_000 });
  const playTemperature = float('play-temperature', values['play-temperature'], LLM_TUNE.playTemperature);
  const playLabels = values['play-labels'] ?? LLM_TUNE.playLabels;
  if (!(PLAY_LABELS as readonly string[]).includes(playLabels)) throw new UsageError(`--play-labels must be ${PLAY_LABELS.join(', ')}, got '${playLabels}'`);
  const playRounds = integerOption('play-rounds', values['play-rounds'], LLM_TUNE.playRounds, { min: 1, max: 100 });

  // The base model, alone: what the adapter is tuned on, and what tokenises the lessons.
  const spec = commandPlatformSpec({ cache: 'off', timing: { kind: 'lockstep' } });
  const base = llmSettingsOf(withEngine(spec.llm, { adapter: null }));
  if (!base.ok) throw new Error(`${base.error}\n${base.help}`);
  if (base.settings.source !== 'local') throw new UsageError('npm run llm:tune tunes the local model: unset OPENAI_BASE_URL and OPENAI_API_KEY (a server model teaches through --teacher cache:<model>)');
  const settings = base.settings;
  const examSet = parseExamSet(readFileSync(EXAM_SET_PATH, 'utf8'), EXAM_SET_PATH);
  const examLimit = integerOption('exam-limit', values['exam-limit'], examSet.items.length, { min: 1, max: examSet.items.length });
  const teachers = (values.teacher?.length ? values.teacher : DEFAULT_TEACHERS).map((t) =>
    parseTeacher(t, { rulesSize: size, rulesSeeds: seeds, cacheDir: settings.cacheDir ?? join('.cache', 'llm') }),
  );

  const { card, untuned } = await tuneAdapter(
    {
      teachers,
      format,
      tuner,
      out,
      work,
      exam: { ...examSet, items: examSet.items.slice(0, examLimit) },
      cardGames,
      play: { games: playGames, temperature: playTemperature, labels: playLabels as PlayLabels, rounds: playRounds },
      spec,
      base: { settings, sha256: settings.pulled ? engineFile(LOCAL_MODELS[settings.pulled]!).sha256 : await sha256File(settings.gguf) },
      reproduce: `npm run llm:tune -- ${process.argv.slice(2).join(' ')}`.trim(),
    },
    {
      withPlatform,
      loadTokenizer: async (s) => {
        const engine = await LocalEngine.load({ gguf: s.gguf, model: s.model, threads: 1, sequences: 1, contextSize: s.contextSize, help: 'run npm run llm:pull' });
        const client = new LlamaChatClient(engine);
        return { promptTokenIds: (m) => client.promptTokenIds(m), answerTokenIds: (max) => client.answerTokenIds(max), dispose: () => engine.dispose() };
      },
      runTuner: (dir, adapter, settings, onEvent) => runTuner(python, dir, adapter, settings, onEvent),
      sha256File,
      now: () => new Date(),
      progress: terminalProgress(),
    },
  );
  console.log(`wrote ${out} (${card.bytes} bytes) and its card ${cardPathOf(out)}`);
  const kappa = (x: number | null) => num(x, 3);
  console.log(`exam: kappa ${kappa(untuned.kappa)} -> ${kappa(card.exam.kappa)}, held-out kappa ${kappa(untuned.heldOut.kappa)} -> ${kappa(card.exam.heldOut.kappa)}`);
  for (const g of card.games) console.log(`llm vs ${g.opponent}: ${g.wins}/${g.losses}/${g.draws} (wins/losses/draws)`);
  return 0;
});

/** --from: an adapter file that is there (the tuner runs in this folder, so the path stays as written, as the card records it). */
function adapterToStartFrom(path: string): string {
  if (!path.endsWith('.gguf')) throw new UsageError(`--from must be a .gguf LoRA adapter, got '${path}'`);
  if (!existsSync(path)) throw new UsageError(`--from ${path}: no such file (a LoRA adapter npm run llm:tune wrote, e.g. models/strategist-gemma3-270m.gguf)`);
  return path;
}

/** Progress on this terminal: log lines, teachers' status lines each over the last, and bars. */
function terminalProgress(): TuneProgress {
  const status = new StatusLine();
  return {
    log(line) {
      status.end();
      console.log(line);
    },
    status(line) {
      status.update(line);
    },
    bar(total, unit) {
      status.end();
      return new ProgressBar(total, unit);
    },
  };
}
