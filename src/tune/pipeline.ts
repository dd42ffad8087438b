/**
 * Teaching the local model to play, stage by stage (npm run llm:tune parses its options and
 * calls {@link tuneAdapter}). Teachers (teachers.ts) give lessons; they become a tuning set
 * in the model's tokens (dataset.ts); the tuner (tuner.ts: python/tune/tune_strategist.py,
 * torch) writes a LoRA adapter the local engine loads; the strategist exam and games judge
 * it; its card goes beside it. Optionally a round of learning from play: the tuned model
 * plays with sampled decisions, the decisions of games it won join the lessons (or, with
 * labels 'rules', every situation it asked about, labelled by the rules: DAgger; with labels
 * 'planner', labelled by the planner at the world of that moment, rebuilt from the game's
 * replay: expert iteration), it is tuned again (each kind of label a stage of its own), and
 * the adapter after play is kept only where the card's games show it better, game by game
 * (games.ts pairedGames). --play-rounds n plays n rounds in one run, each with the adapter
 * kept so far and taught every round's lessons so far; each round's stages keep their
 * results, so a stopped run resumes in the round it stopped.
 *
 * Every stage leaves its result in the work folder, and the tuner resumes from its
 * checkpoint, so a stopped run goes on where it stopped. What runs outside this process
 * (platforms, the engine's tokenizer, the tuner) and what the person sees are passed in.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { type AnswerFormat, EXAM_SET_PATH, type ExamSet, type LocalLlmSettings, SYSTEM_CLOCK, scoreExam, takeExam, withEngine, withLlmFlags } from '../llm';
import { ADAPTER_CARD_FORMAT, ADAPTER_CARD_VERSION, type AdapterCard, type ExamSummary, type GameRow, cardPathOf } from '../llm/node/adapterCard';
import { ggufModelName } from '../llm/localModels';
import { num, pct } from '../report/format';
import type { Platform } from '../teams';
import type { PlatformSpec } from '../teams/nodePlatform';
import { GAME_SEED } from '../train/evaluate';
import { type PromptTokenizer, tuningRows, writeTuningSet } from './dataset';
import { overallWinShare, pairedGames, playSeries, shownBetter } from './games';
import { type Lesson, type Teacher, replaysTeacher } from './teachers';
import type { TunerEvent, TunerMetrics, TunerSettings } from './tuner';

/** The games an adapter plays for its card: the study's baselines and the best constant plan. */
export const CARD_OPPONENTS = ['flat', 'bt', 'fixed:skills=secure+secure'];
/** Seeds of the round's games, apart from the card's (train/evaluate.ts GAME_SEED). */
const PLAY_SEED = 29;
/** The round's opponents: every kind of team it will meet. */
export const PLAY_OPPONENTS = ['flat', 'bt', 'heuristic', 'fixed:skills=secure+combat'];

export type TunedFormat = Extract<AnswerFormat, 'terse' | 'compact'>;

/** What the round of learning from play teaches: its own decisions in games won, or the rules' or the planner's choices on every situation it asked about. */
export const PLAY_LABELS = ['won', 'rules', 'planner'] as const;
export type PlayLabels = (typeof PLAY_LABELS)[number];

export interface TuneOptions {
  readonly teachers: readonly Teacher[];
  /** The prompt the model is taught (and an adapter is examined in). */
  readonly format: TunedFormat;
  readonly tuner: TunerSettings;
  /** The adapter to write (a .gguf); its card goes beside it. */
  readonly out: string;
  /** Where the stages keep their results. */
  readonly work: string;
  readonly exam: ExamSet;
  /** Games per card opponent. */
  readonly cardGames: number;
  /**
   * Learning from play: games per opponent a round (0: none), their sampling temperature,
   * what a round teaches, and how many rounds (default 1), each from the adapter kept so far.
   */
  readonly play: { readonly games: number; readonly temperature: number; readonly labels: PlayLabels; readonly rounds?: number };
  /** The command's platform spec (the strategist's settings over the environment). */
  readonly spec: PlatformSpec;
  /** The base model: what the adapter is tuned on, and what tokenises the lessons. */
  readonly base: { readonly settings: LocalLlmSettings; readonly sha256: string };
  /** The command that reproduces the run, for the card. */
  readonly reproduce: string;
}

/** A bar over a stage's units (tuner steps, situations, games). */
export interface TuneBar {
  update(done: number, details: string): void;
  done(message: string): void;
}

/** What the person running it sees. */
export interface TuneProgress {
  /** A line of the run's log. */
  log(line: string): void;
  /** A teacher's progress, each line replacing the one before. */
  status(line: string): void;
  bar(total: number, unit: string): TuneBar;
}

export interface TuneDependencies {
  /** Build a platform from `spec`, hand it to `use`, and close it whatever `use` does. */
  withPlatform<T>(spec: PlatformSpec, use: (platform: Platform) => Promise<T>): Promise<T>;
  /** The base model's own tokenizer and chat template, as the engine reads the prompts; dispose frees the engine. */
  loadTokenizer(settings: LocalLlmSettings): Promise<PromptTokenizer & { dispose(): Promise<void> }>;
  /** Run the tuner on the set in `dir`, writing the adapter `out` (tuner.ts runTuner with the chosen Python). */
  runTuner(dir: string, out: string, settings: TunerSettings, onEvent: (e: TunerEvent) => void): Promise<TunerMetrics>;
  sha256File(path: string): Promise<string>;
  /** The card's creation time. */
  now(): Date;
  readonly progress: TuneProgress;
}

interface Tuned {
  readonly adapter: string;
  readonly metrics: TunerMetrics;
}

/** A round of learning from play as the card records it. */
type PlayRound = NonNullable<NonNullable<AdapterCard['fromPlay']>['later']>[number];

/** The first round's record: the card's fromPlay itself, which names no round. */
function withoutRound({ round: _, ...rest }: PlayRound): Omit<PlayRound, 'round'> {
  return rest;
}

interface Judged {
  readonly exam: ExamSummary;
  readonly games: GameRow[];
}

const sha256Of = (text: string) => createHash('sha256').update(text).digest('hex');

/** A judgement kept by an earlier run, or null where the file does not parse (it is then judged again). */
function keptJudgement(file: string): ({ readonly key: string } & Judged) | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { key: string } & Judged;
  } catch {
    return null;
  }
}

/** Tune, judge and write the adapter and its card; returns the card and the untuned model's exam. */
export async function tuneAdapter(options: TuneOptions, deps: TuneDependencies): Promise<{ readonly card: AdapterCard; readonly untuned: ExamSummary }> {
  const { format, work, out, spec, play, progress } = { ...options, progress: deps.progress };
  const settings = options.base.settings;
  const baseSpec: PlatformSpec = { ...spec, llm: withEngine(spec.llm, { adapter: null }) };
  mkdirSync(work, { recursive: true });

  // 1. Lessons, kept in the work folder (the rules teacher plays hundreds of matches).
  const taught: { teacher: Teacher; lessons: Lesson[] }[] = [];
  await deps.withPlatform(baseSpec, async (platform) => {
    for (const teacher of options.teachers) taught.push({ teacher, lessons: await lessonsOf(teacher, platform, work, progress) });
  });
  const lessons = taught.flatMap((t) => t.lessons);

  // 2. The tuning set in the model's tokens, 3. the tuner.
  const baseInfo = { path: settings.gguf, sha256: options.base.sha256 };
  // A stage tuned before is taken only where what decides it is the same (stage.json): the
  // base model, the format, the tuner's settings, the adapter it starts from and the lessons.
  const stageKey = async (all: readonly Lesson[]) =>
    JSON.stringify({ base: options.base.sha256, format, tuner: options.tuner, from: options.tuner.init ? await deps.sha256File(options.tuner.init) : null, lessons: sha256Of(JSON.stringify(all)) });
  const tune = async (name: string, all: readonly Lesson[]): Promise<Tuned> => {
    const dir = join(work, name);
    const adapter = join(dir, 'adapter.gguf');
    const metricsFile = join(dir, 'metrics.json');
    const keyFile = join(dir, 'stage.json');
    const key = await stageKey(all);
    if (existsSync(adapter) && existsSync(metricsFile)) {
      const kept = existsSync(keyFile) ? readFileSync(keyFile, 'utf8') : null;
      if (kept !== key) {
        throw new Error(`${dir} holds an adapter tuned ${kept === null ? 'by a run that did not record its settings' : 'with other lessons or settings'} (base model, format, tuner settings, --from adapter, lessons): delete the folder to tune it again, or give another --work`);
      }
      progress.log(`${name}: tuned by an earlier run (${adapter})`);
      return { adapter, metrics: JSON.parse(readFileSync(metricsFile, 'utf8')) as TunerMetrics };
    }
    mkdirSync(dir, { recursive: true });
    writeFileSync(keyFile, key);
    const tokenizer = await deps.loadTokenizer(settings);
    try {
      const counts = writeTuningSet(dir, tuningRows(all, tokenizer, { format }), tokenizer, baseInfo);
      progress.log(`${name}: ${counts.train} lessons to learn, ${counts.held} held out`);
    } finally {
      await tokenizer.dispose();
    }
    const bar = progress.bar(options.tuner.steps, 'steps');
    const metrics = await deps.runTuner(dir, adapter, options.tuner, (e) => {
      if (e.event === 'step') bar.update(Number(e.step), `loss ${e.loss}, agreement ${e.agreement}`);
      else if (e.event === 'eval') progress.log(`\n  held-out ${JSON.stringify(e.held)} at step ${e.step}`);
      else if (e.event === 'lower layers' && e.examples !== undefined) progress.log(`  lower layers: ${e.cached} of ${e.examples} examples kept from before`);
      else if (e.event === 'lower layers') progress.log(`\n  lower layers: ${e.computed} new examples in ${e.seconds} s`);
      else if (e.event === 'resumed') progress.log(`  resumed at step ${e.step}`);
    });
    bar.done(`${name}: tuned`);
    return { adapter, metrics };
  };

  // 4. Judges: the exam, and games for the card, each on its own platform (closed after). An
  // adapter is asked in the format it was taught; the model alone as it runs untuned (compact).
  // A stage's judgement is kept beside its adapter (judged.json), named by what decides it (the
  // adapter's bytes, the format, the exam's situations, the games), so a run that goes on to a
  // round of play does not examine and play the adapter it starts from again.
  const judge = async (adapter: string | null, games: number): Promise<Judged> => {
    const asked = adapter === null ? 'compact' : format;
    const key =
      adapter === null
        ? null
        : JSON.stringify({ adapter: await deps.sha256File(adapter), base: options.base.sha256, format: asked, exam: sha256Of(JSON.stringify(options.exam.items)), games, opponents: CARD_OPPONENTS, seed: GAME_SEED });
    const file = adapter === null ? null : join(dirname(adapter), 'judged.json');
    const kept = file && existsSync(file) ? keptJudgement(file) : null;
    if (kept && kept.key === key) {
      progress.log(`${basename(dirname(adapter!))}: judged by an earlier run (${file})`);
      return { exam: kept.exam, games: kept.games };
    }
    const judged: PlatformSpec = { ...spec, llm: withEngine(withLlmFlags(spec.llm, { format: asked }), { adapter, sequences: 1, threads: 1 }) };
    const result: Judged = await deps.withPlatform(judged, async (platform) => ({ exam: await examOf(platform, options.exam, asked, progress), games: games > 0 ? await gamesOf(platform, games, progress) : [] }));
    if (file) {
      writeFileSync(`${file}.tmp`, JSON.stringify({ key, ...result }));
      renameSync(`${file}.tmp`, file);
    }
    return result;
  };

  const imitation = await tune('imitation', lessons);
  progress.log('the strategist exam, untuned then tuned:');
  const untuned = (await judge(null, 0)).exam;
  let shipped: Tuned & Judged = { ...imitation, ...(await judge(imitation.adapter, options.cardGames)) };

  // 5. Rounds of learning from play: sampled decisions, taught again with their labels. Each
  // round plays with the adapter kept so far and tunes on imitation's lessons with every
  // round's lessons so far (DAgger's aggregation); its adapter is kept only if shown better.
  const rounds: PlayRound[] = [];
  const played: Lesson[] = [];
  for (let round = 1; play.games > 0 && round <= (play.rounds ?? 1); round++) {
    // The first round's files keep their names, so a work folder of one round resumes as it was.
    const suffix = round === 1 ? '' : `-${round}`;
    const replays = join(work, `play${suffix}`);
    const playing: PlatformSpec = {
      ...spec,
      llm: withEngine(withLlmFlags(spec.llm, { temperature: play.temperature, format }), { adapter: shipped.adapter, compact: 'sample', sequences: 1, threads: 1 }),
    };
    // A stopped round resumes after its last whole game, but only the same round: the games
    // of another adapter or temperature must not be mixed into this one's lessons.
    const setup = { adapter: await deps.sha256File(shipped.adapter), temperature: play.temperature, format, games: play.games, seed: PLAY_SEED };
    // Beside the replays' folder, not in it: the replays teacher reads every .json file there as a replay.
    // It names the games in that folder: with the folder deleted, it names none.
    const roundFile = join(work, `play${suffix}.round.json`);
    const kept = existsSync(roundFile) && existsSync(replays) ? readFileSync(roundFile, 'utf8') : null;
    if (kept !== null && kept !== JSON.stringify(setup)) {
      throw new Error(`${replays} holds the games of another round (${kept}); this one is ${JSON.stringify(setup)}: delete the folder to play it`);
    }
    mkdirSync(replays, { recursive: true });
    writeFileSync(roundFile, JSON.stringify(setup));
    if (!existsSync(join(replays, 'done'))) {
      const bar = progress.bar(play.games * PLAY_OPPONENTS.length, 'games');
      await deps.withPlatform(playing, (platform) => playSeries(platform, 'llm', PLAY_OPPONENTS, { games: play.games, seed: PLAY_SEED, replays, onGame: (d, t) => bar.update(d, `${d} of ${t} games`) }));
      bar.done(`round ${round} played`);
      writeFileSync(join(replays, 'done'), '');
    }
    const playTeacher = play.labels === 'won' ? replaysTeacher(replays, { source: 'llm', wonOnly: true }) : replaysTeacher(replays, { source: 'llm', wonOnly: false, labels: play.labels });
    const won = await deps.withPlatform(baseSpec, (platform) => lessonsOf(playTeacher, platform, work, progress));
    played.push(...won);
    const tuned = await tune(`${play.labels === 'won' ? 'after-play' : `after-play-${play.labels}`}${suffix}`, [...lessons, ...played]);
    const afterPlay: Tuned & Judged = { ...tuned, ...(await judge(tuned.adapter, options.cardGames)) };
    // The card's games are the same seeded games for both adapters: compare them game by game.
    const paired = pairedGames(shipped.games, afterPlay.games);
    const better = shownBetter(paired);
    const [before, after] = [overallWinShare(shipped.games), overallWinShare(afterPlay.games)];
    const from = round === 1 ? 'imitation alone' : 'the adapter kept before the round';
    const counts = `after play it won ${pct(after)} of the card games against ${pct(before)} for ${from}; game by game it did better in ${paired.better} and worse in ${paired.worse} of ${paired.games} (sign test p = ${num(paired.p, 3)})`;
    rounds.push({
      round,
      games: play.games * PLAY_OPPONENTS.length,
      won: new Set(won.map((l) => l.from.split(', tick')[0])).size,
      lessons: won.length,
      temperature: play.temperature,
      labels: play.labels,
      imitation: { exam: shipped.exam, games: shipped.games },
      afterPlay: { exam: afterPlay.exam, games: afterPlay.games },
      shipped: better ? 'after-play' : 'imitation',
      why: better ? counts : `${counts}: the round was not shown to help, so ${round === 1 ? 'imitation is shipped' : 'the adapter kept before it stays'}`,
    });
    if (better) shipped = afterPlay;
  }
  const [first, ...later] = rounds;
  const fromPlay: AdapterCard['fromPlay'] = first ? { ...withoutRound(first), ...(later.length ? { later } : {}) } : undefined;

  // 6. The adapter and its card.
  mkdirSync(join(out, '..'), { recursive: true });
  copyFileSync(shipped.adapter, out);
  const card: AdapterCard = {
    format: ADAPTER_CARD_FORMAT,
    version: ADAPTER_CARD_VERSION,
    name: ggufModelName(out),
    sha256: await deps.sha256File(out),
    bytes: statSync(out).size,
    base: { model: settings.pulled ?? settings.model, file: settings.gguf.split('/').pop()!, sha256: options.base.sha256 },
    lora: { rank: options.tuner.rank, alpha: options.tuner.alpha, ...shipped.metrics.lora },
    prompt: format,
    decoding: 'compact answers, each number read from the model\'s probabilities after the prompt and after each comma, uncalibrated (LLM_COMPACT=scores)',
    teachers: taught.map(({ teacher, lessons: l }) => ({ name: teacher.name, describe: teacher.describe, lessons: l.length })),
    training: { settings: shipped.metrics.settings, examples: shipped.metrics.examples, history: shipped.metrics.history, seconds: shipped.metrics.seconds },
    ...(fromPlay ? { fromPlay } : {}),
    exam: shipped.exam,
    examUntuned: untuned,
    games: shipped.games,
    reproduce: options.reproduce,
    createdAt: deps.now().toISOString(),
  };
  writeFileSync(cardPathOf(out), `${JSON.stringify(card, null, 1)}\n`);
  return { card, untuned };
}

/** A teacher's lessons, read from the work folder where an earlier run left them. */
async function lessonsOf(teacher: Teacher, platform: Platform, work: string, progress: TuneProgress): Promise<Lesson[]> {
  const file = join(work, `lessons-${teacher.name.replace(/[^A-Za-z0-9._-]+/g, '_')}.json`);
  if (existsSync(file)) {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as Lesson[];
    progress.log(`${teacher.name}: ${kept.length} lessons (kept from an earlier run in ${file})`);
    return kept;
  }
  const lessons = await teacher.lessons({ platform, progress: (line) => progress.status(line) });
  writeFileSync(file, JSON.stringify(lessons));
  progress.log(`${teacher.name}: ${lessons.length} lessons`);
  return lessons;
}

async function examOf(platform: Platform, set: ExamSet, format: AnswerFormat, progress: TuneProgress): Promise<ExamSummary> {
  const connection = await platform.llm.connect();
  const bar = progress.bar(set.items.length, 'situations');
  const answers = await takeExam(set, connection.client, { format, temperature: 0, clock: SYSTEM_CLOCK, onProgress: (d, t) => bar.update(d, `${connection.client.model}: ${d} of ${t}`) });
  bar.done('examined');
  const s = scoreExam(set, answers);
  return {
    set: `${EXAM_SET_PATH} (${set.items.length} situations)`,
    situations: s.situations,
    agreement: s.agreement,
    kappa: s.kappa,
    heldOut: { agreement: s.heldOut.agreement, kappa: s.heldOut.kappa },
    ...(s.planner ? { planner: s.planner } : {}),
    cmiBits: s.cmiBits,
    mostCommon: s.mostCommon,
    skillShares: s.skillShares,
    latencyMs: s.latencyMs,
  };
}

async function gamesOf(platform: Platform, games: number, progress: TuneProgress): Promise<GameRow[]> {
  const bar = progress.bar(games * CARD_OPPONENTS.length, 'games');
  const rows = await playSeries(platform, 'llm', CARD_OPPONENTS, { games, seed: GAME_SEED, onGame: (d, t) => bar.update(d, `${d} of ${t} games`) });
  bar.done('played');
  return rows;
}
