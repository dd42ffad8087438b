/**
 * The tuning pipeline on injected stages: no engine, no torch, no matches. It is what
 * npm run llm:tune runs once its options are parsed: lessons on the base model alone, the
 * tuner on them, the exam untuned (compact) and tuned (in the taught format), and the
 * adapter with its card; a second run takes every stage from the work folder.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ChatClient, EXAM_SET_PATH, type LocalLlmSettings, parseExamSet } from '../../src/llm';
import { cardPathOf, readAdapterCard } from '../../src/llm/node/adapterCard';
import { RuleChatClient } from '../../src/llm/ruleClient';
import { runMatch } from '../../src/match';
import { DEFAULT_CONFIG } from '../../src/sim';
import { SKILLS } from '../../src/skills';
import type { Platform } from '../../src/teams';
import { type PlatformSpec, readPlatformSpec } from '../../src/teams/nodePlatform';
import { type TuneDependencies, type TuneOptions, tuneAdapter } from '../../src/tune/pipeline';
import { askedOf as answersOf } from '../../src/tune/games';
import { type Lesson, type Teacher, askedPathOf, lessonOf, replayLabeller, replayLessons } from '../../src/tune/teachers';
import { DEFAULT_TUNER, type TunerMetrics } from '../../src/tune/tuner';
import { TEST_PLATFORM, llmPlatform } from '../helpers/platform';
import { tempDir } from '../helpers/tempDirs';

const dir = tempDir('tune');

const shipped = parseExamSet(readFileSync(EXAM_SET_PATH, 'utf8'), EXAM_SET_PATH);
const exam = { ...shipped, items: shipped.items.slice(0, 6) };

/** A stand-in digest: the name's own SHA-256. */
const shaOf = (name: string) => createHash('sha256').update(name).digest('hex');

/** A teacher with two lessons, counting how often it is asked. */
function countingTeacher(): Teacher & { asked: number } {
  const lesson = (k: number): Lesson => lessonOf(exam.items[k]!.situation, exam.items[k]!.current, exam.items[k]!.rules, 'test');
  return {
    name: 'fixed',
    describe: 'two fixed lessons',
    asked: 0,
    async lessons({ progress }) {
      this.asked++;
      progress?.('1 of 2');
      return [lesson(0), lesson(1)];
    },
  };
}

/** Stages that record what they were given: platforms answer the exam with the rules' choices. */
function fakeStages(): TuneDependencies & { specs: PlatformSpec[]; tuned: string[]; log: string[] } {
  const specs: PlatformSpec[] = [];
  const tuned: string[] = [];
  const log: string[] = [];
  // The trained skills are there for labels that play the world forward (the planner's); the language model is a stand-in.
  const platform = {
    ...TEST_PLATFORM,
    llm: {
      async connect() {
        let k = 0;
        const client: ChatClient = { model: 'fake', complete: async () => ({ text: exam.items[k++]!.rules.map((s) => SKILLS[s].number).join(',') }) };
        return { client };
      },
    },
  } as unknown as Platform;
  const metrics: TunerMetrics = { settings: { steps: 3 }, examples: { train: 2, held: 0 }, history: [], lora: { layers: [17], targets: ['q_proj'] }, seconds: 1 };
  return {
    specs,
    tuned,
    log,
    withPlatform: async (spec, use) => {
      specs.push(spec);
      return use(platform);
    },
    loadTokenizer: async () => ({
      promptTokenIds: (messages) => [...messages.map((m) => m.content).join('|')].map((c) => c.charCodeAt(0)),
      answerTokenIds: (max) => ({ numbers: Array.from({ length: max }, (_, i) => 49 + i), comma: 44 }),
      dispose: async () => {},
    }),
    runTuner: async (work, out) => {
      tuned.push(work);
      writeFileSync(out, 'adapter bytes');
      writeFileSync(join(work, 'metrics.json'), JSON.stringify(metrics));
      return metrics;
    },
    sha256File: async (path) => shaOf(path.split('/').pop()!),
    now: () => new Date('2026-01-02T03:04:05Z'),
    progress: { log: (line) => log.push(line), status: () => {}, bar: () => ({ update: () => {}, done: (m) => log.push(m) }) },
  };
}

const engineOf = (spec: PlatformSpec) => (spec.llm.engine.ok ? spec.llm.engine.value : null);
const askedOf = (spec: PlatformSpec) => (spec.llm.asking.ok ? spec.llm.asking.value.format : null);

describe('tuneAdapter', () => {
  const out = join(dir, 'adapters', 'taught.gguf');
  const options = (teacher: Teacher): TuneOptions => ({
    teachers: [teacher],
    format: 'terse',
    tuner: { ...DEFAULT_TUNER, steps: 3 },
    out,
    work: join(dir, 'work'),
    exam,
    cardGames: 0,
    play: { games: 0, temperature: 0.7, labels: 'won' },
    spec: readPlatformSpec({}, { llm: { cache: 'off' } }),
    base: { settings: { gguf: '/models/base.gguf', model: 'base', contextSize: 2048 } as unknown as LocalLlmSettings, sha256: shaOf('base') },
    reproduce: 'npm run llm:tune -- --steps 3',
  });

  it('teaches on the base model alone, examines untuned in compact and tuned in the taught format, and writes the adapter with its card', async () => {
    const teacher = countingTeacher();
    const stages = fakeStages();
    const { card, untuned } = await tuneAdapter(options(teacher), stages);

    const imitation = join(dir, 'work', 'imitation');
    expect(stages.tuned).toEqual([imitation]);
    expect(stages.specs.map((s) => [engineOf(s)?.adapter, askedOf(s)])).toEqual([
      [null, undefined], // the lessons, on the base model
      [null, 'compact'], // the exam, untuned
      [join(imitation, 'adapter.gguf'), 'terse'], // the exam, tuned
    ]);
    expect(readFileSync(out, 'utf8')).toBe('adapter bytes');
    const written = readAdapterCard(cardPathOf(out));
    expect(written).toEqual(card);
    expect(card.teachers).toEqual([{ name: 'fixed', describe: 'two fixed lessons', lessons: 2 }]);
    expect(card.base).toEqual({ model: 'base', file: 'base.gguf', sha256: shaOf('base') });
    expect(card.prompt).toBe('terse');
    expect([card.exam.kappa, untuned.kappa, card.exam.situations]).toEqual([1, 1, 6]);
    expect(card.examUntuned).toEqual(untuned);
    // The exam's planner columns come onto the card: answers that are the rules' agree with the planner where the tree does.
    const living = exam.items.flatMap((i) => i.situation.agents.flatMap((a, s) => (a.alive ? [i.rules[s] === i.planner![s]] : [])));
    expect(card.exam.planner!.agreement).toBeCloseTo(living.filter(Boolean).length / living.length, 12);
    expect(card.games).toEqual([]);
    expect(card.fromPlay).toBeUndefined();
    expect([card.createdAt, card.reproduce, card.sha256]).toEqual(['2026-01-02T03:04:05.000Z', 'npm run llm:tune -- --steps 3', shaOf('taught.gguf')]);
  });

  it('takes the lessons and the tuned adapter from the work folder when run again', async () => {
    const teacher = countingTeacher();
    const stages = fakeStages();
    await tuneAdapter(options(teacher), stages);
    expect(teacher.asked).toBe(0);
    expect(stages.tuned).toEqual([]);
    expect(stages.log).toContain(`fixed: 2 lessons (kept from an earlier run in ${join(dir, 'work', 'lessons-fixed.json')})`);
    expect(stages.log).toContain(`imitation: tuned by an earlier run (${join(dir, 'work', 'imitation', 'adapter.gguf')})`);
    // Its exam is kept too: only the untuned model is examined again.
    expect(stages.log).toContain(`imitation: judged by an earlier run (${join(dir, 'work', 'imitation', 'judged.json')})`);
    expect(stages.specs.map((s) => engineOf(s)?.adapter)).toEqual([null, null]);
    expect(existsSync(out)).toBe(true);
    // Asked other games, it is judged again.
    const again = fakeStages();
    await tuneAdapter({ ...options(teacher), cardGames: 1 }, again);
    expect(again.specs.map((s) => engineOf(s)?.adapter)).toContain(join(dir, 'work', 'imitation', 'adapter.gguf'));
    // Asked to tune otherwise (more steps, or from an adapter), the kept stage is refused by what decides it, not taken.
    for (const tuner of [{ ...DEFAULT_TUNER, steps: 4 }, { ...DEFAULT_TUNER, steps: 3, init: out }]) {
      const other = fakeStages();
      await expect(tuneAdapter({ ...options(teacher), tuner }, other)).rejects.toThrow(/imitation holds an adapter tuned with other lessons or settings .*delete the folder to tune it again/);
      expect(other.tuned).toEqual([]);
    }
  });

  it("with play labels 'planner', teaches the planner's choice at every situation the model asked about in its games, a stage of its own each round", async () => {
    const work = join(dir, 'expert');
    // Each round's games, as a stopped run left them: one short game with every answer the model gave.
    const game = await runMatch({ blue: 'llm', red: 'bt-scripted', seed: 3, config: { ...DEFAULT_CONFIG, episodeSeconds: 8 } }, { platform: llmPlatform(new RuleChatClient(), { timing: { kind: 'lockstep' } }) });
    const play = { games: 1, temperature: 0.7, labels: 'planner' as const, rounds: 2 };
    const file = join(work, 'play', 'game-bt-scripted-0000.json');
    for (const suffix of ['', '-2']) {
      const replays = join(work, `play${suffix}`);
      mkdirSync(replays, { recursive: true });
      writeFileSync(askedPathOf(join(replays, 'game-bt-scripted-0000.json')), JSON.stringify(answersOf(game)));
      writeFileSync(join(replays, 'game-bt-scripted-0000.json'), JSON.stringify(game.replay()));
      writeFileSync(join(replays, 'done'), '');
      // Each round plays with the adapter kept so far: imitation's here (stand-in digests are the file's name).
      writeFileSync(join(work, `play${suffix}.round.json`), JSON.stringify({ adapter: shaOf('adapter.gguf'), temperature: play.temperature, format: 'terse', games: play.games, seed: 29 }));
    }

    const stages = fakeStages();
    const { card } = await tuneAdapter({ ...options(countingTeacher()), work, out: join(dir, 'adapters', 'expert.gguf'), play }, stages);
    expect(stages.tuned).toEqual([join(work, 'imitation'), join(work, 'after-play-planner'), join(work, 'after-play-planner-2')]);
    const expected = await replayLessons(game.replay(), answersOf(game), { wonOnly: false, from: file, label: replayLabeller('planner', TEST_PLATFORM) });
    expect(expected.length).toBeGreaterThan(5);
    const kept = JSON.parse(readFileSync(join(work, `lessons-${`replays:${join(work, 'play')}:planner`.replace(/[^A-Za-z0-9._-]+/g, '_')}.json`), 'utf8')) as Lesson[];
    expect(kept).toEqual(expected);
    // The second round is taught every round's lessons: the same game's twice, each row's weight doubled.
    const weights = (stage: string) => readFileSync(join(work, stage, 'data.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { weight: number; from: string }));
    const played = (stage: string) => weights(stage).filter((row) => row.from.startsWith(file));
    expect(played('after-play-planner').length).toBeGreaterThan(2);
    expect(played('after-play-planner-2').map((r) => r.weight)).toEqual(played('after-play-planner').map((r) => 2 * r.weight));
    expect(card.fromPlay).toMatchObject({ labels: 'planner', games: 4, won: 1, lessons: expected.length, shipped: 'imitation' });
    expect(card.fromPlay!.later).toMatchObject([{ round: 2, labels: 'planner', lessons: expected.length, shipped: 'imitation' }]);
    // No card games to tell them apart: no round was shown better, so imitation ships.
    expect(card.fromPlay!.why).toMatch(/not shown to help, so imitation is shipped$/);
    expect(card.fromPlay!.later![0]!.why).toMatch(/not shown to help, so the adapter kept before it stays$/);
    expect(readAdapterCard(cardPathOf(join(dir, 'adapters', 'expert.gguf')))).toEqual(card);
  }, 60_000);
});
