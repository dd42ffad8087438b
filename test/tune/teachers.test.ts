import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatRequest, cacheKey, systemPrompt } from '../../src/llm';
import { FileCacheStore } from '../../src/llm/node/fileCache';
import { RuleChatClient } from '../../src/llm/ruleClient';
import { Match, type ReplayFile, buildExamSet, replayTicks, runMatch, sideSeed } from '../../src/match';
import { DEFAULT_CONFIG, OBS_SIZE, idleAction, observe } from '../../src/sim';
import { SCRIPTED_SKILLS, SKILL_IDS, type SkillId, skillContext } from '../../src/skills';
import { askedOf } from '../../src/tune/games';
import { PERSONAS, PLANNER_DEFAULTS, type PlannerSettings, personaByName, plannerChoice, rulesChoice } from '../../src/teams';
import {
  type AskedDecision,
  PLANNER_FIRST_SEED,
  askedPathOf,
  cacheTeacher,
  closestSkill,
  parseTeacher,
  personasTeacher,
  plannerTeacher,
  recordedDecisions,
  replayLabeller,
  replayLessons,
  replaysTeacher,
} from '../../src/tune/teachers';
import { TEST_PLATFORM, llmPlatform } from '../helpers/platform';
import { TestClient } from '../llm/helpers';

/** A client that answers as the rules do and keeps every state it was asked about. */
class RecordingClient extends RuleChatClient {
  readonly asked: string[] = [];
  override async complete(request: ChatRequest) {
    this.asked.push(request.messages.at(-1)!.content);
    return super.complete(request);
  }
}

describe('the replays teacher', () => {
  let replay: ReplayFile;
  let asked: AskedDecision[];
  let prompts: string[];

  beforeAll(async () => {
    const client = new RecordingClient();
    const match = await runMatch({ blue: 'llm', red: 'bt-scripted', seed: 4 }, { platform: llmPlatform(client, { timing: { kind: 'lockstep' } }) });
    replay = match.replay();
    asked = askedOf(match);
    prompts = client.asked;
  });

  it('gives every answer of a played match as a lesson: the state its strategist was asked about, and what it chose', async () => {
    const lessons = await replayLessons(replay, asked, { wonOnly: false, from: 'test' });
    expect(asked.length).toBeGreaterThan(50);
    expect(lessons.map((l) => l.prompt)).toEqual(prompts);
    expect(lessons.map((l) => l.choice)).toEqual(asked.map((d) => d.skills));
    expect(lessons.every((l) => l.taught.every(Boolean) && l.weight === 1)).toBe(true);
  });

  it("with labels 'rules', the same situations taught with the rules' choice instead of the strategist's own (DAgger)", async () => {
    const own = await replayLessons(replay, asked, { wonOnly: false, from: 'test' });
    const relabelled = await replayLessons(replay, asked, { wonOnly: false, from: 'test', label: replayLabeller('rules', TEST_PLATFORM) });
    expect(relabelled.map((l) => l.prompt)).toEqual(own.map((l) => l.prompt));
    // This match's model answered carefully, much as the rules do.
    const same = relabelled.filter((l, i) => l.choice.join() === own[i]!.choice.join()).length;
    expect(same / own.length).toBeGreaterThan(0.8);
    // A model that always navigates is taught what the rules would have done instead.
    const constant = new TestClient(() => Promise.resolve({ text: '1,1' }));
    const match = await runMatch({ blue: 'llm', red: 'bt-scripted', seed: 4 }, { platform: llmPlatform(constant, { timing: { kind: 'lockstep' } }) });
    const played = askedOf(match);
    expect(new Set((await replayLessons(match.replay(), played, { wonOnly: false, from: 'test' })).flatMap((l) => l.choice))).toEqual(new Set(['navigate']));
    const taught = new Set((await replayLessons(match.replay(), played, { wonOnly: false, from: 'test', label: replayLabeller('rules', TEST_PLATFORM) })).flatMap((l) => l.choice));
    expect(taught.has('combat') || taught.has('secure')).toBe(true);
  });

  it("with labels 'planner', each situation taught with the planner's choice at the world of that tick, as a plain match reaches it", async () => {
    // Some answers from the whole match, each labelled at its own tick.
    const some = asked.filter((_, i) => i % 25 === 5);
    const labelled = await replayLessons(replay, some, { wonOnly: false, from: 'test', label: replayLabeller('planner', TEST_PLATFORM) });
    expect(labelled.map((l) => l.prompt)).toEqual(some.map((d) => prompts[asked.indexOf(d)]));
    // The same match played again, stopped at each asked tick: the planner's choice there, the opponent's skills known.
    const match = await Match.create({ blue: 'llm', red: 'bt-scripted', seed: 4 }, { platform: llmPlatform(new RecordingClient(), { timing: { kind: 'lockstep' } }), record: false });
    const expected: SkillId[][] = [];
    for (const d of some) {
      while (match.world.tick < d.tick) {
        const pending = match.advance();
        if (pending) await pending;
      }
      const [own, enemy] = [match.controllers[d.team], match.controllers[1 - d.team]!];
      expected.push(await plannerChoice(TEST_PLATFORM, match.world, d.team, own.currentSkills as SkillId[], { seed: sideSeed(4, 'blue', 'planner'), opponentSkills: enemy.currentSkills as SkillId[] }));
    }
    match.close();
    expect(labelled.map((l) => l.choice)).toEqual(expected);
    // The planner does not simply echo the model's answers: somewhere it chose otherwise.
    expect(labelled.some((l, i) => l.choice.join() !== some[i]!.skills.join())).toBe(true);
  });

  it('from a replay alone, the answers that changed skills; only games won when asked', async () => {
    const recorded = recordedDecisions(replay, 'llm');
    expect(recorded.length).toBeLessThan(asked.length);
    expect((await replayLessons(replay, recorded, { wonOnly: false, from: 'test' })).map((l) => l.choice)).toEqual(replay.decisions.filter((d) => d.source === 'llm').map((d) => d.skills));
    expect((await replayLessons(replay, asked, { wonOnly: true, from: 'test' })).length > 0).toBe(replay.outcome === 'blue');
    expect(await replayLessons({ ...replay, outcome: 'red' }, asked, { wonOnly: true, from: 'test' })).toEqual([]);
  });

  it('reads a folder of replays with their answers, and refuses a folder that is not there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replays-'));
    try {
      writeFileSync(join(dir, 'a.json'), JSON.stringify(replay));
      writeFileSync(askedPathOf(join(dir, 'a.json')), JSON.stringify(asked));
      const lessons = await replaysTeacher(dir, { source: 'llm', wonOnly: false }).lessons({ platform: TEST_PLATFORM });
      expect(lessons.map((l) => l.prompt)).toEqual(prompts);
      writeFileSync(askedPathOf(join(dir, 'a.json')), '[{"tick": -1}]');
      await expect(replaysTeacher(dir, { source: 'llm', wonOnly: false }).lessons({ platform: TEST_PLATFORM })).rejects.toThrow(/a.asked.json: expected a list of \{tick, team, skills\}/);
      await expect(replaysTeacher(join(dir, 'none'), { source: 'llm', wonOnly: false }).lessons({ platform: TEST_PLATFORM })).rejects.toThrow(/no such folder/);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});

describe('the cache teacher', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cache-'));
  afterAll(() => rmSync(dir, { recursive: true }));

  it("reads a model's cached decisions with their states; other models, personas and bad answers are passed over", async () => {
    const store = new FileCacheStore(join(dir, 'decisions.jsonl'));
    const ask = (system: string, user: string) => ({ messages: [{ role: 'system' as const, content: system }, { role: 'user' as const, content: user }], temperature: 0 });
    const state = 'Agent 1: health HIGH.\nAgent 2: health LOW.\nTeam: time PLENTY.';
    store.set(cacheKey('big', ask(systemPrompt('compact', 2), state)), { text: '3,4', latencyMs: 5 });
    store.set(cacheKey('big', ask(systemPrompt('json', 2), `${state} `)), { text: '{"skills":["combat","secure"],"rationale":"x"}', latencyMs: 5 });
    store.set(cacheKey('big', ask(systemPrompt('compact', 2, DEFAULT_CONFIG, 'a persona'), `${state}  `)), { text: '1,1', latencyMs: 5 });
    store.set(cacheKey('big', ask(systemPrompt('compact', 2), `${state}   `)), { text: 'no idea', latencyMs: 5 });
    store.set(cacheKey('small', ask(systemPrompt('compact', 2), state)), { text: '1,1', latencyMs: 5 });
    const lessons = await cacheTeacher('big', dir).lessons({ platform: TEST_PLATFORM });
    expect(lessons.map((l) => [l.prompt, l.choice])).toEqual([
      [state, ['secure', 'retreat']],
      [`${state} `, ['combat', 'secure']],
    ]);
    await expect(cacheTeacher('absent', dir).lessons({ platform: TEST_PLATFORM })).rejects.toThrow(/holds no decisions of absent/);
  });
});

describe("the study teacher's reading of play", () => {
  it('finds the skill whose actions an agent followed', async () => {
    // States from all over a match, where the skills act differently.
    const match = await runMatch({ blue: 'bt-scripted', red: 'heuristic', seed: 5 }, { platform: TEST_PLATFORM });
    const observations: Float32Array[] = [];
    for (const world of replayTicks(match.replay())) {
      if (world.tick % 40 === 0) observations.push(new Float32Array(observe(world, 0, new Float32Array(OBS_SIZE))));
    }
    const context = skillContext(DEFAULT_CONFIG);
    const out = [idleAction()];
    for (const id of SKILL_IDS) {
      const window = observations.map((obs) => {
        void SCRIPTED_SKILLS[id].act(obs, 1, out, context);
        return { obs, did: { ...out[0]! } };
      });
      expect(closestSkill(window, context)).toBe(id);
    }
  });
});

describe('the personas teacher', () => {
  it("puts each situation under one persona's style, labelled by that persona's tree", async () => {
    const lessons = await personasTeacher({ size: 70, seeds: 1 }).lessons({ platform: TEST_PLATFORM });
    expect(lessons).toHaveLength(70);
    const byStyle = new Map(PERSONAS.map((p) => [p.prompt, lessons.filter((l) => l.style === p.prompt)]));
    for (const [, of] of byStyle) expect(of.length).toBe(10);
    // The flanker never sends an agent to secure (one already securing may hold on); the
    // aggressive persona never sends a living agent to retreat (an eliminated one keeps its skill).
    const slotsOf = (persona: string) =>
      byStyle.get(personaByName(persona)!.prompt)!.flatMap((l) => {
        const lines = l.prompt.split('\n');
        return l.choice.map((skill, slot) => ({ skill, line: lines[slot]! }));
      });
    for (const { skill, line } of slotsOf('flanker')) expect(skill !== 'secure' || line.endsWith('skill Secure.'), line).toBe(true);
    const aggressive = slotsOf('aggressive');
    for (const { skill, line } of aggressive) expect(skill !== 'retreat' || (line.includes('eliminated') && line.endsWith('skill Retreat.')), line).toBe(true);
    // Its living agents were asked about: the rule above is not met by eliminated agents alone.
    expect(aggressive.filter(({ line }) => !line.includes('eliminated')).length).toBeGreaterThan(5);
  }, 120_000);
});

describe('the planner teacher', () => {
  /** The planner's choice at the world a lesson names: its match played again to that tick. */
  async function plannerLabelOf(from: string, current: readonly SkillId[], settings?: PlannerSettings): Promise<SkillId[]> {
    const [, blue, red, seed, tick, side] = from.match(/^planner(?::[^ ]+)?: (.+) vs (.+), seed (\d+), tick (\d+), (blue|red)$/)!;
    const match = await Match.create({ blue: blue!, red: red!, seed: Number(seed) }, { platform: TEST_PLATFORM, record: false });
    while (match.world.tick < Number(tick)) {
      const pending = match.advance();
      if (pending) await pending;
    }
    const team = side === 'blue' ? 0 : 1;
    const opponent = match.controllers[1 - team]!.currentSkills;
    const label = await plannerChoice(TEST_PLATFORM, match.world, team, current, {
      seed: sideSeed(Number(seed), side as 'blue' | 'red', 'planner'),
      ...(settings ? { settings } : {}),
      opponentSkills: opponent.every((s) => s !== null) ? (opponent as SkillId[]) : null,
    });
    match.close();
    return label;
  }

  it("labels situations of real play from its own seeds, the same the rules would be taught on, with the planner's choice at each world", async () => {
    const lessons = await plannerTeacher({ size: 14, seeds: 1 }).lessons({ platform: TEST_PLATFORM });
    const situations = await buildExamSet(TEST_PLATFORM, { size: 14, seeds: 1, firstSeed: PLANNER_FIRST_SEED, every: 25, command: 'test' });
    expect(lessons.map((l) => l.from)).toEqual(situations.items.map((i) => `planner: ${i.from}`));
    expect(lessons[0]!.from).toMatch(new RegExp(`, seed ${PLANNER_FIRST_SEED}, tick \\d+, (blue|red)$`));
    // Somewhere the planner's choice is not the rules'.
    expect(lessons.some((l, k) => l.choice.join() !== rulesChoice(situations.items[k]!.situation, situations.items[k]!.current).join())).toBe(true);
    for (const k of [0, 7]) expect(lessons[k]!.choice, lessons[k]!.from).toEqual(await plannerLabelOf(lessons[k]!.from, situations.items[k]!.current));
  }, 120_000);

  it("with the planner team's settings (planner:rollouts=3), each label is that planner's", async () => {
    const teacher = parseTeacher('planner:rollouts=3', { rulesSize: 6, rulesSeeds: 1, cacheDir: '.cache/llm' });
    expect(teacher.name).toBe('planner:rollouts=3');
    expect(teacher.describe).toContain("the planner's choice (planner:rollouts=3)");
    const lessons = await teacher.lessons({ platform: TEST_PLATFORM });
    const situations = await buildExamSet(TEST_PLATFORM, { size: 6, seeds: 1, firstSeed: PLANNER_FIRST_SEED, every: 25, command: 'test' });
    expect(lessons.map((l) => l.from)).toEqual(situations.items.map((i) => `planner:rollouts=3: ${i.from}`));
    // Not the default planner's labels: the settings reached the labeller.
    const plain = await plannerTeacher({ size: 6, seeds: 1 }).lessons({ platform: TEST_PLATFORM });
    expect(lessons.some((l, k) => l.choice.join() !== plain[k]!.choice.join())).toBe(true);
    const settings = { ...PLANNER_DEFAULTS, rollouts: 3 };
    for (const k of [0, 3]) expect(lessons[k]!.choice, lessons[k]!.from).toEqual(await plannerLabelOf(lessons[k]!.from, situations.items[k]!.current, settings));
  }, 120_000);
});

describe('teacher names', () => {
  it('are parsed, and a wrong one says what is expected', () => {
    const defaults = { rulesSize: 10, rulesSeeds: 1, cacheDir: '.cache/llm' };
    expect(parseTeacher('rules', defaults).name).toBe('rules');
    expect(parseTeacher('personas', defaults).name).toBe('personas');
    expect(parseTeacher('planner', defaults).describe).toMatch(/^the planner's choice \(planner:every=1:horizon=5:.*\) at the worlds of 10 situations of real play \(1 seeds per team pair from 3001\)$/);
    const expert = parseTeacher('replays:runs/play:planner', defaults);
    expect(expert.name).toBe('replays:runs/play:planner');
    expect(expert.describe).toBe("the planner's choices at the worlds of the situations the llm strategist asked about in the replays of runs/play");
    expect(parseTeacher('cache:gemma3:27b', defaults).describe).toContain('gemma3:27b made, read from the decision cache in .cache/llm');
    expect(parseTeacher('cache:gemma3:27b@/tmp/c', defaults).describe).toContain('in /tmp/c');
    expect(parseTeacher('replays:runs/play:won', defaults).describe).toContain('games won only');
    const dagger = parseTeacher('replays:runs/play:won:rules', defaults);
    expect(dagger.name).toBe('replays:runs/play:won:rules');
    expect(dagger.describe).toBe("the rules' choices on the situations the llm strategist asked about in the replays of runs/play, games won only");
    expect(parseTeacher('replays:runs/play:rules', defaults).describe).not.toContain('won');
    expect(() => parseTeacher('replays::rules', defaults)).toThrow('expected replays:<dir of replay files>[:won][:rules|:planner]');
    expect(parseTeacher('study:data/studies.sqlite', defaults).name).toBe('study:data/studies.sqlite');
    expect(() => parseTeacher('teacher', defaults)).toThrow("unknown teacher 'teacher': expected rules, personas, planner[:<setting>=<value>...]");
    expect(() => parseTeacher('planner:rollouts=0', defaults)).toThrow(/^teacher 'planner:rollouts=0': .*rollouts.*\(expected planner:<setting>=<value>\.\.\. with the planner team's settings\)$/);
    expect(() => parseTeacher('planner:depth=3', defaults)).toThrow(/depth/);
    expect(() => parseTeacher('cache:', defaults)).toThrow(/unknown teacher/);
  });
});
