/**
 * npm run llm:tune: teach the local model to play. Teachers (src/tune/teachers.ts) give
 * lessons; they become a tuning set in the model's tokens (src/tune/dataset.ts); the tuner
 * (python/tune/tune_strategist.py, torch) writes a LoRA adapter the local engine loads; the
 * strategist exam and games judge it; its card goes beside it. Optionally a round of
 * learning from play: the tuned model plays with sampled decisions, the decisions of games
 * it won join the lessons (or, with --play-labels rules, every situation it asked about,
 * labelled by the rules: DAgger), it is tuned again, and the adapter after play is kept only where
 * the card's games show it better, game by game (tune/games.ts pairedGames).
 *
 * Every stage leaves its result in the work folder, and the tuner resumes from its
 * checkpoint, so a stopped run goes on where it stopped.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type AnswerFormat,
  EXAM_SET_PATH,
  type ExamSet,
  SYSTEM_CLOCK,
  llmSettingsOf,
  parseExamSet,
  scoreExam,
  takeExam,
  withEngine,
  withLlmFlags,
} from '../llm';
import { sha256File } from '../llm/digest';
import { LlamaChatClient } from '../llm/llamaClient';
import { LocalEngine } from '../llm/localEngine';
import { LOCAL_MODELS, ggufModelName, shippedAdapterPath } from '../llm/localModels';
import { num, pct } from '../report/format';
import type { Platform } from '../teams';
import { GAME_SEED } from '../train/evaluate';
import type { PlatformSpec } from '../teams/nodePlatform';
import { ADAPTER_CARD_FORMAT, ADAPTER_CARD_VERSION, type AdapterCard, type ExamSummary, type GameRow, cardPathOf } from '../llm/adapterCard';
import { tuningRows, writeTuningSet } from '../tune/dataset';
import { overallWinShare, pairedGames, playSeries, shownBetter } from '../tune/games';
import { type Lesson, TEACHER_HELP, type Teacher, parseTeacher, replaysTeacher } from '../tune/teachers';
import { DEFAULT_TUNER, TUNE_SETUP_HELP, TUNE_VENV, type TunerMetrics, type TunerSettings, defaultPython, runTuner, setupTuner } from '../tune/tuner';
import { UsageError, integerOption, parseCommandLine, runCli } from './args';
import { LLM_TUNE } from './defaults';
import { commandPlatformSpec, withPlatform } from './platform';
import { ProgressBar } from './progress';

const DEFAULT_OUT = shippedAdapterPath(LOCAL_MODELS['gemma3-270m']!)!;
/** Where each adapter's stages keep their results, in a folder named after it. */
const WORK_ROOT = join('.cache', 'tune');
/** The games an adapter plays for its card: the study's baselines and the best constant plan. */
const CARD_OPPONENTS = ['flat', 'bt', 'fixed:skills=secure+secure'];
/** The shipped adapter's teachers: the rules, and the personas, so a style in the prompt moves the choices. */
const DEFAULT_TEACHERS = ['rules', 'personas'];
/** Seeds of the round's games, apart from the card's (train/evaluate.ts GAME_SEED). */
const PLAY_SEED = 29;
/** The round's opponents: every kind of team it will meet. */
const PLAY_OPPONENTS = ['flat', 'bt', 'heuristic', 'fixed:skills=secure+combat'];

/** The tuner's settings a flag of the same name sets. */
const TUNER_OPTIONS = ['steps', 'batch', 'layers', 'rank', 'lr', 'threads'] as const;

const USAGE = `usage: npm run llm:tune [-- --teacher <t>]... [--out <file>] [--work <dir>] [options]
  teaches the local model (Gemma 3 270M) to choose skills as a teacher does: writes a LoRA
  adapter (GGUF) and its card (.json beside it), judged by the strategist exam and games.
  --teacher       ${TEACHER_HELP} (default ${DEFAULT_TEACHERS.join(' and ')}, as the shipped adapter; repeat to mix)
  --format        the prompt it is taught: terse (the state in one-token codes, a quarter of the
                  tokens to read per decision) or compact (the state in words) (default ${LLM_TUNE.format})
  --size          situations the rules teacher takes from real play (default ${LLM_TUNE.size})
  --seeds         matches per team pair the rules teacher plays (default ${LLM_TUNE.seeds})
  ${TUNER_OPTIONS.map((k) => `--${k}`).join(', ')}   the tuner's settings (python/tune/tune_strategist.py;
                  default ${TUNER_OPTIONS.map((k) => `${k} ${DEFAULT_TUNER[k]}`).join(', ')})
  --out           the adapter to write (default ${DEFAULT_OUT}, the one the product loads)
  --work          where the stages keep their results (default ${join(WORK_ROOT, "<out's name>")})
  --exam-limit    exam only the first n situations (default all)
  --games         games per opponent for the card (${CARD_OPPONENTS.join(', ')}; default ${LLM_TUNE.games})
  --play-games    the round of learning from play: games per opponent (${PLAY_OPPONENTS.join(', ')}) with
                  sampled decisions; 0 skips the round (default ${LLM_TUNE.playGames})
  --play-temperature  the round's sampling temperature (default ${LLM_TUNE.playTemperature})
  --play-labels   what the round teaches: won (the model's own decisions in the games it won)
                  or rules (the rules' choices on every situation it asked about, won or lost: DAgger)
                  (default ${LLM_TUNE.playLabels})
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
  };
  const format = values.format ?? LLM_TUNE.format;
  if (format !== 'terse' && format !== 'compact') throw new UsageError(`--format must be terse or compact (the answers the engine scores), got '${format}'`);
  const size = integerOption('size', values.size, LLM_TUNE.size, { min: 10, max: 100_000 });
  const seeds = integerOption('seeds', values.seeds, LLM_TUNE.seeds, { min: 1, max: 10_000 });
  const cardGames = integerOption('games', values.games, LLM_TUNE.games, { min: 0, max: 100_000 });
  const playGames = integerOption('play-games', values['play-games'], LLM_TUNE.playGames, { min: 0, max: 100_000 });
  const playTemperature = float('play-temperature', values['play-temperature'], LLM_TUNE.playTemperature);
  const playLabels = values['play-labels'] ?? LLM_TUNE.playLabels;
  if (playLabels !== 'won' && playLabels !== 'rules') throw new UsageError(`--play-labels must be won or rules, got '${playLabels}'`);

  // The base model, alone: what the adapter is tuned on, and what tokenises the lessons.
  const spec = commandPlatformSpec({ cache: 'off', timing: { kind: 'lockstep' } });
  const baseSpec: PlatformSpec = { ...spec, llm: withEngine(spec.llm, { adapter: null }) };
  const base = llmSettingsOf(baseSpec.llm);
  if (!base.ok) throw new Error(`${base.error}\n${base.help}`);
  if (base.settings.source !== 'local') throw new UsageError('npm run llm:tune tunes the local model: unset OPENAI_BASE_URL and OPENAI_API_KEY (a server model teaches through --teacher cache:<model>)');
  const settings = base.settings;
  const baseSha = settings.pulled ? LOCAL_MODELS[settings.pulled]!.sha256 : await sha256File(settings.gguf);
  const examSet = parseExamSet(readFileSync(EXAM_SET_PATH, 'utf8'), EXAM_SET_PATH);
  const examLimit = integerOption('exam-limit', values['exam-limit'], examSet.items.length, { min: 1, max: examSet.items.length });
  const exam: ExamSet = { ...examSet, items: examSet.items.slice(0, examLimit) };
  mkdirSync(work, { recursive: true });

  const teachers: Teacher[] = (values.teacher?.length ? values.teacher : DEFAULT_TEACHERS).map((t) =>
    parseTeacher(t, { rulesSize: size, rulesSeeds: seeds, cacheDir: settings.cacheDir ?? join('.cache', 'llm') }),
  );

  // 1. Lessons, kept in the work folder (the rules teacher plays hundreds of matches).
  const taught: { teacher: Teacher; lessons: Lesson[] }[] = [];
  await withPlatform(baseSpec, async (platform) => {
    for (const teacher of teachers) taught.push({ teacher, lessons: await lessonsOf(teacher, platform, work) });
  });
  const lessons = taught.flatMap((t) => t.lessons);

  // 2. The tuning set in the model's tokens, 3. the tuner.
  const baseInfo = { path: settings.gguf, sha256: baseSha };
  const tune = async (name: string, all: readonly Lesson[]): Promise<Tuned> => {
    const dir = join(work, name);
    const adapter = join(dir, 'adapter.gguf');
    const metricsFile = join(dir, 'metrics.json');
    if (existsSync(adapter) && existsSync(metricsFile)) {
      console.log(`${name}: tuned by an earlier run (${adapter})`);
      return { adapter, metrics: JSON.parse(readFileSync(metricsFile, 'utf8')) as TunerMetrics };
    }
    // The base model's own tokenizer and chat template, as the engine will read the prompts.
    const engine = await LocalEngine.load({ gguf: settings.gguf, model: settings.model, threads: 1, sequences: 1, contextSize: settings.contextSize, help: 'run npm run llm:pull' });
    try {
      const tokenizer = new LlamaChatClient(engine);
      const counts = writeTuningSet(dir, tuningRows(all, tokenizer, { format }), tokenizer, baseInfo);
      console.log(`${name}: ${counts.train} lessons to learn, ${counts.held} held out`);
    } finally {
      await engine.dispose();
    }
    const bar = new ProgressBar(tuner.steps, 'steps');
    const metrics = await runTuner(python, dir, adapter, tuner, (e) => {
      if (e.event === 'step') bar.update(Number(e.step), `loss ${e.loss}, agreement ${e.agreement}`);
      else if (e.event === 'eval') console.log(`\n  held-out ${JSON.stringify(e.held)} at step ${e.step}`);
      else if (e.event === 'lower layers' && e.examples !== undefined) console.log(`  lower layers: ${e.cached} of ${e.examples} examples kept from before`);
      else if (e.event === 'lower layers') console.log(`\n  lower layers: ${e.computed} new examples in ${e.seconds} s`);
      else if (e.event === 'resumed') console.log(`  resumed at step ${e.step}`);
    });
    bar.done(`${name}: tuned`);
    return { adapter, metrics };
  };

  // 4. Judges: the exam, and games for the card, each on its own platform (closed after). An
  // adapter is asked in the format it was taught; the model alone as it runs untuned (compact).
  const judge = async (adapter: string | null, games: number): Promise<Judged> => {
    const asked = adapter === null ? 'compact' : format;
    const judged: PlatformSpec = { ...spec, llm: withEngine(withLlmFlags(spec.llm, { format: asked }), { adapter, sequences: 1, threads: 1 }) };
    return withPlatform(judged, async (platform) => ({ exam: await examOf(platform, exam, asked), games: games > 0 ? await gamesOf(platform, games) : [] }));
  };

  const imitation = await tune('imitation', lessons);
  console.log('the strategist exam, untuned then tuned:');
  const untuned = (await judge(null, 0)).exam;
  let shipped: Tuned & Judged = { ...imitation, ...(await judge(imitation.adapter, cardGames)) };
  let fromPlay: AdapterCard['fromPlay'];

  // 5. The round of learning from play: sampled decisions, those of games won taught again.
  if (playGames > 0) {
    const replays = join(work, 'play');
    const playing: PlatformSpec = {
      ...spec,
      llm: withEngine(withLlmFlags(spec.llm, { temperature: playTemperature, format }), { adapter: imitation.adapter, compact: 'sample', sequences: 1, threads: 1 }),
    };
    // A stopped round resumes after its last whole game, but only the same round: the games
    // of another adapter or temperature must not be mixed into this one's lessons.
    const round = { adapter: await sha256File(imitation.adapter), temperature: playTemperature, format, games: playGames, seed: PLAY_SEED };
    // Beside the replays' folder, not in it: the replays teacher reads every .json file there as a replay.
    // It names the games in that folder: with the folder deleted, it names none.
    const roundFile = join(work, 'play.round.json');
    const kept = existsSync(roundFile) && existsSync(replays) ? readFileSync(roundFile, 'utf8') : null;
    if (kept !== null && kept !== JSON.stringify(round)) {
      throw new UsageError(`${replays} holds the games of another round (${kept}); this one is ${JSON.stringify(round)}: delete the folder to play it`);
    }
    mkdirSync(replays, { recursive: true });
    writeFileSync(roundFile, JSON.stringify(round));
    if (!existsSync(join(replays, 'done'))) {
      const bar = new ProgressBar(playGames * PLAY_OPPONENTS.length, 'games');
      await withPlatform(playing, (platform) => playSeries(platform, 'llm', PLAY_OPPONENTS, { games: playGames, seed: PLAY_SEED, replays, onGame: (d, t) => bar.update(d, `${d} of ${t} games`) }));
      bar.done('the round played');
      writeFileSync(join(replays, 'done'), '');
    }
    const playTeacher = playLabels === 'rules' ? replaysTeacher(replays, { source: 'llm', wonOnly: false, labels: 'rules' }) : replaysTeacher(replays, { source: 'llm', wonOnly: true });
    const won = await withPlatform(baseSpec, (platform) => lessonsOf(playTeacher, platform, work));
    const tuned = await tune(playLabels === 'rules' ? 'after-play-rules' : 'after-play', [...lessons, ...won]);
    const afterPlay: Tuned & Judged = { ...tuned, ...(await judge(tuned.adapter, cardGames)) };
    // The card's games are the same seeded games for both adapters: compare them game by game.
    const paired = pairedGames(shipped.games, afterPlay.games);
    const better = shownBetter(paired);
    const [before, after] = [overallWinShare(shipped.games), overallWinShare(afterPlay.games)];
    const counts = `after play it won ${pct(after)} of the card games against ${pct(before)} for imitation alone; game by game it did better in ${paired.better} and worse in ${paired.worse} of ${paired.games} (sign test p = ${paired.p.toFixed(3)})`;
    fromPlay = {
      games: playGames * PLAY_OPPONENTS.length,
      won: new Set(won.map((l) => l.from.split(', tick')[0])).size,
      lessons: won.length,
      temperature: playTemperature,
      labels: playLabels,
      imitation: { exam: shipped.exam, games: shipped.games },
      afterPlay: { exam: afterPlay.exam, games: afterPlay.games },
      shipped: better ? 'after-play' : 'imitation',
      why: better ? counts : `${counts}: the round was not shown to help, so imitation is shipped`,
    };
    if (better) shipped = afterPlay;
  }

  // 6. The adapter and its card.
  mkdirSync(join(out, '..'), { recursive: true });
  copyFileSync(shipped.adapter, out);
  const card: AdapterCard = {
    format: ADAPTER_CARD_FORMAT,
    version: ADAPTER_CARD_VERSION,
    name: ggufModelName(out),
    sha256: await sha256File(out),
    bytes: statSync(out).size,
    base: { model: settings.pulled ?? settings.model, file: settings.gguf.split('/').pop()!, sha256: baseSha },
    lora: { rank: tuner.rank, alpha: tuner.alpha, ...shipped.metrics.lora },
    prompt: format,
    decoding: 'compact answers, each number read from the model\'s probabilities after the prompt and after each comma, uncalibrated (LLM_COMPACT=scores)',
    teachers: taught.map(({ teacher, lessons: l }) => ({ name: teacher.name, describe: teacher.describe, lessons: l.length })),
    training: { settings: shipped.metrics.settings, examples: shipped.metrics.examples, history: shipped.metrics.history, seconds: shipped.metrics.seconds },
    ...(fromPlay ? { fromPlay } : {}),
    exam: shipped.exam,
    examUntuned: untuned,
    games: shipped.games,
    reproduce: `npm run llm:tune -- ${process.argv.slice(2).join(' ')}`.trim(),
    createdAt: new Date().toISOString(),
  };
  writeFileSync(cardPathOf(out), `${JSON.stringify(card, null, 1)}\n`);
  console.log(`wrote ${out} (${card.bytes} bytes) and its card ${cardPathOf(out)}`);
  console.log(`exam: kappa ${fmt(untuned.kappa)} -> ${fmt(card.exam.kappa)}, held-out kappa ${fmt(untuned.heldOut.kappa)} -> ${fmt(card.exam.heldOut.kappa)}`);
  for (const g of card.games) console.log(`llm vs ${g.opponent}: ${g.wins}/${g.losses}/${g.draws} (wins/losses/draws)`);
  return 0;
});

interface Tuned {
  readonly adapter: string;
  readonly metrics: TunerMetrics;
}

interface Judged {
  readonly exam: ExamSummary;
  readonly games: GameRow[];
}

const fmt = (x: number | null) => num(x, 3);

/** A teacher's lessons, read from the work folder where an earlier run left them. */
async function lessonsOf(teacher: Teacher, platform: Platform, work: string): Promise<Lesson[]> {
  const file = join(work, `lessons-${teacher.name.replace(/[^A-Za-z0-9._-]+/g, '_')}.json`);
  if (existsSync(file)) {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as Lesson[];
    console.log(`${teacher.name}: ${kept.length} lessons (kept from an earlier run in ${file})`);
    return kept;
  }
  let last = '';
  const lessons = await teacher.lessons({ platform, progress: (line) => (line !== last ? process.stdout.write(`\r${(last = line)}`) : undefined) });
  process.stdout.write('\n');
  writeFileSync(file, JSON.stringify(lessons));
  console.log(`${teacher.name}: ${lessons.length} lessons`);
  return lessons;
}

async function examOf(platform: Platform, set: ExamSet, format: AnswerFormat): Promise<ExamSummary> {
  const connection = await platform.llm.connect();
  const bar = new ProgressBar(set.items.length, 'situations');
  const answers = await takeExam(set, connection.client, { format, temperature: 0, clock: SYSTEM_CLOCK, onProgress: (d, t) => bar.update(d, `${connection.client.model}: ${d} of ${t}`) });
  bar.done('examined');
  const s = scoreExam(set, answers);
  return {
    set: `${EXAM_SET_PATH} (${set.items.length} situations)`,
    situations: s.situations,
    agreement: s.agreement,
    kappa: s.kappa,
    heldOut: { agreement: s.heldOut.agreement, kappa: s.heldOut.kappa },
    cmiBits: s.cmiBits,
    mostCommon: s.mostCommon,
    skillShares: s.skillShares,
    latencyMs: s.latencyMs,
  };
}

async function gamesOf(platform: Platform, games: number): Promise<GameRow[]> {
  const bar = new ProgressBar(games * CARD_OPPONENTS.length, 'games');
  const rows = await playSeries(platform, 'llm', CARD_OPPONENTS, { games, seed: GAME_SEED, onGame: (d, t) => bar.update(d, `${d} of ${t} games`) });
  bar.done('played');
  return rows;
}
