/**
 * The planner: its rollouts play copies of the world and leave the world as it was, score
 * an end the way the planner means it, the same seed plans the same way, ties keep the
 * tree's choice, its variant is read and checked, and its default plays a match whose
 * replay verifies from the recorded decisions.
 */
import { describe, expect, it } from 'vitest';
import { Match, runMatch, sideSeed, verifyReplayWithModels } from '../../src/match';
import { DEFAULT_CONFIG, createWorld, hashWorld, idleAction, step, teamSituation } from '../../src/sim';
import type { SkillId } from '../../src/skills';
import {
  PLANNER_DEFAULTS,
  PlannerStrategist,
  RolloutRunner,
  TreeSide,
  bestOption,
  cloneWorld,
  planCandidates,
  planRationale,
  plannerChoice,
  plannerOf,
  resolveTeam,
  rulesChoice,
  scoreRollout,
  teamEntry,
} from '../../src/teams';
import { TEST_PLATFORM } from '../helpers/platform';

const SHORT = { ...DEFAULT_CONFIG, episodeSeconds: 12 };

/** A world some seconds into a bt vs bt match, where both sides have moved and fought. */
async function midMatch(seconds: number) {
  const match = await runMatch({ blue: 'bt', red: 'bt', seed: 5, config: { ...DEFAULT_CONFIG, episodeSeconds: seconds } }, { platform: TEST_PLATFORM, record: false });
  // runMatch ends at the draw tick: take the world back to before its outcome.
  const world = cloneWorld(match.world);
  world.outcome = null;
  world.tick -= 4 + (world.tick % 4);
  return world;
}

/** The world at `tick` of a whole bt vs bt match: far from its end, so rollouts play their horizon. */
async function worldAt(tick: number) {
  const match = await Match.create({ blue: 'bt', red: 'bt', seed: 5 }, { platform: TEST_PLATFORM, record: false });
  while (match.world.tick < tick) {
    const pending = match.advance();
    if (pending) await pending;
  }
  match.close();
  return cloneWorld(match.world);
}

async function planner(seed: number, settings = PLANNER_DEFAULTS) {
  const skills = await TEST_PLATFORM.models.skillSet();
  return new PlannerStrategist(settings, new TreeSide(0, skills), new TreeSide(1, skills), new TreeSide(1, skills), 0, seed, DEFAULT_CONFIG);
}

describe('cloneWorld', () => {
  it('gives a copy that steps as the world would, and stepping it leaves the world as it was', () => {
    const world = createWorld(3);
    const actions = world.agents.map((_, i) => ({ ...idleAction(), move: 1, turn: i % 2 ? 0.5 : -0.5, fire: 1 }));
    for (let t = 0; t < 200; t++) step(world, actions);
    const before = hashWorld(world);
    const copy = cloneWorld(world);
    for (let t = 0; t < 300; t++) step(copy, actions);
    expect(hashWorld(world)).toBe(before);
    for (let t = 0; t < 300; t++) step(world, actions);
    expect(hashWorld(copy)).toBe(hashWorld(world));
    expect(copy.agents[0]!.stats).not.toBe(world.agents[0]!.stats);
  });
});

describe('scoreRollout', () => {
  it('counts a win and a loss above everything else, then progress, eliminations, health and the zone', () => {
    const start = createWorld(1);
    const won = cloneWorld(start);
    won.outcome = { kind: 'win', team: 0 };
    expect(scoreRollout(start, won, 0)).toBe(100);
    expect(scoreRollout(start, won, 1)).toBe(-100);
    const even = scoreRollout(start, cloneWorld(start), 0);
    expect(even).toBe(0);
    const ahead = cloneWorld(start);
    ahead.progress[0] = ahead.timings.winHold / 2;
    expect(scoreRollout(start, ahead, 0)).toBeCloseTo(0.5);
    const downed = cloneWorld(start);
    downed.agents[0]!.stats.deaths++;
    downed.agents[0]!.alive = false;
    expect(scoreRollout(start, downed, 0)).toBeCloseTo(-0.25 - 0.1);
    expect(scoreRollout(start, downed, 1)).toBeCloseTo(0.25 + 0.1);
  });
});

describe('planCandidates', () => {
  it("puts the tree's choice first, then one agent changed at a time (agent) or every combination (joint); eliminated agents follow the tree", () => {
    const agent = planCandidates([true, true], 'agent');
    expect(agent).toHaveLength(9);
    expect(agent[0]).toEqual(['tree', 'tree']);
    expect(agent).toContainEqual(['secure', 'tree']);
    expect(agent).toContainEqual(['tree', 'retreat']);
    expect(planCandidates([true, false], 'agent')).toHaveLength(5);
    const joint = planCandidates([true, true], 'joint');
    expect(joint).toHaveLength(25);
    expect(joint[0]).toEqual(['tree', 'tree']);
    expect(new Set(joint.map((m) => m.join('+'))).size).toBe(25);
  });

  it("keeps the earlier option on a tie, so the tree's own choice stands unless a change scores better", () => {
    expect(bestOption([{ modes: ['tree'], score: 1 }, { modes: ['secure'], score: 1 }])).toBe(0);
    expect(bestOption([{ modes: ['tree'], score: 1 }, { modes: ['secure'], score: 1.5 }, { modes: ['combat'], score: 1.5 }])).toBe(1);
  });
});

describe('PlannerStrategist', () => {
  it('plans without touching the world, and the same seed plans the same way', async () => {
    const world = await midMatch(6);
    const hash = hashWorld(world);
    const rng = world.rngState;
    const a = await planner(9);
    const b = await planner(9);
    const current = ['navigate', 'navigate'] as const;
    const first = await a.decide(world, 0, current);
    expect(hashWorld(world)).toBe(hash);
    expect(world.rngState).toBe(rng);
    expect(await b.decide(world, 0, current)).toEqual(first);
    expect(b.lastPlan).toEqual(a.lastPlan);
    expect(a.lastPlan!.options).toHaveLength(9);
    expect(a.counters.rollouts + a.counters.spared).toBe(9);
    expect(first.rationale).toMatch(/^planned \S+ \(-?\d+\.\d\d\) at \d+\.\d s; options /);
  });

  it("spares the rollouts that would replay the tree's own move for move, and every option scores what its own rollout scores", async () => {
    const skills = await TEST_PLATFORM.models.skillSet();
    let spared = 0;
    for (const seconds of [3, 6, 9, 12]) {
      const world = await midMatch(seconds);
      const p = await planner(seconds);
      await p.decide(world, 0, ['navigate', 'navigate']);
      spared += p.counters.spared;
      expect(p.counters.rollouts + p.counters.spared).toBe(p.lastPlan!.options.length);
      // Each option played on its own, from the same start, stream and opponent guess.
      const tracker = new TreeSide(1, skills);
      tracker.begin(world, ['navigate', 'navigate']);
      tracker.choose(world);
      const own = new TreeSide(0, skills);
      const runner = new RolloutRunner(world, 0, own, new TreeSide(1, skills), seconds);
      for (const option of p.lastPlan!.options) {
        own.hold(option.modes, world.tick + 50);
        expect(runner.play(world, ['navigate', 'navigate'], tracker.skills, 250, 0)).toBe(option.score);
      }
    }
    expect(spared).toBeGreaterThan(0);
  });

  it('plans again only after `every` seconds, its answers carrying the latest plan', async () => {
    const world = await midMatch(6);
    const p = await planner(1, { ...PLANNER_DEFAULTS, every: 1 });
    const planned = await p.decide(world, 0, ['navigate', 'navigate']);
    const rollouts = p.counters.rollouts;
    const later = cloneWorld(world);
    later.tick += 4;
    expect((await p.decide(later, 0, ['navigate', 'navigate'])).rationale).toBe(planned.rationale);
    expect(p.counters.rollouts).toBe(rollouts);
    later.tick += 48;
    await p.decide(later, 0, ['navigate', 'navigate']);
    expect(p.counters.rollouts).toBeGreaterThan(rollouts);
  });

  it('plans in slices when given a budget, pausing between rollouts, and plans the same as at once', async () => {
    const world = await midMatch(6);
    let now = 0;
    let pauses = 0;
    // Each reading of this clock is 3 ms later: a 5 ms slice holds two rollouts.
    const clock = { now: () => (now += 3), sleep: async () => void pauses++, timer: () => () => {} };
    const skills = await TEST_PLATFORM.models.skillSet();
    const sliced = new PlannerStrategist(PLANNER_DEFAULTS, new TreeSide(0, skills), new TreeSide(1, skills), new TreeSide(1, skills), 0, 9, DEFAULT_CONFIG, { sliceMs: 5, clock });
    const answer = sliced.decide(world, 0, ['navigate', 'navigate']);
    expect(answer).toBeInstanceOf(Promise);
    const atOnce = await planner(9);
    expect(await answer).toEqual(await atOnce.decide(world, 0, ['navigate', 'navigate']));
    expect(sliced.lastPlan).toEqual(atOnce.lastPlan);
    expect(pauses).toBe(sliced.slices);
    expect(sliced.slices).toBeGreaterThanOrEqual(3);
  });

  it('lists at most 12 options in words, saying how many more it tried', () => {
    const options = planCandidates([true, true, true], 'joint').map((modes, i) => ({ modes, score: i / 100 }));
    const words = planRationale({ tick: 100, options, chosen: options.length - 1 });
    expect(words).toMatch(/^planned retreat\+retreat\+retreat \(1\.24\) at 2\.0 s; options /);
    expect(words).toMatch(/and 113 more$/);
    expect(words.length).toBeLessThan(2000);
  });
});

describe('plannerChoice: the planner as a teacher', () => {
  it('labels a world without touching it, the same way each time, and from the opponent skills given', async () => {
    const world = await worldAt(600);
    const [hash, rng] = [hashWorld(world), world.rngState];
    const label = () => plannerChoice(TEST_PLATFORM, world, 0, ['navigate', 'navigate'], { seed: 9 });
    const first = await label();
    expect(first).toHaveLength(2);
    expect(await label()).toEqual(first);
    expect([hashWorld(world), world.rngState]).toEqual([hash, rng]);
    // Without the opponent's skills it takes a fresh planner's guess: a planner's first decision.
    expect(first).toEqual((await (await planner(9)).decide(world, 0, ['navigate', 'navigate'])).skills);
  });

  it("is what the planner team played at each of its plans in a match, given the opponent skills it tracked, and differs from the rules' choice", async () => {
    const seed = 21;
    const match = await Match.create({ blue: 'bt', red: 'planner', seed, config: SHORT }, { platform: TEST_PLATFORM, record: false });
    const controller = match.controllers[1];
    const strategist = plannerOf(controller)!;
    const plans: { world: ReturnType<typeof cloneWorld>; current: SkillId[]; tracked: SkillId[]; played: SkillId[] }[] = [];
    while (!match.done) {
      // Before its first act the controller holds no skills yet: its agents start on navigate.
      const current = controller.currentSkills.length ? ([...controller.currentSkills] as SkillId[]) : (['navigate', 'navigate'] as SkillId[]);
      const world = cloneWorld(match.world);
      const pending = match.advance();
      if (pending) await pending;
      if (strategist.lastPlan?.tick === world.tick) plans.push({ world, current, tracked: [...strategist.opponentSkills], played: [...controller.currentSkills] as SkillId[] });
    }
    match.close();
    expect(plans.length).toBeGreaterThan(5);
    let differsFromRules = 0;
    for (const { world, current, tracked, played } of plans) {
      const label = await plannerChoice(TEST_PLATFORM, world, 1, current, { seed: sideSeed(seed, 'red', 'planner'), opponentSkills: tracked });
      expect(label, `tick ${world.tick}`).toEqual(played);
      if (label.join() !== rulesChoice(teamSituation(world, 1), current).join()) differsFromRules++;
    }
    expect(differsFromRules).toBeGreaterThan(0);
  });

  it('labels a world between skill ticks (the exam samples every 25 ticks) from fresh policies, not from what the last rollout left', async () => {
    const skills = await TEST_PLATFORM.models.skillSet();
    const world = await worldAt(600);
    const between = cloneWorld(world);
    between.tick += 1;
    const runnerOf = () => new RolloutRunner(world, 0, new TreeSide(0, skills), new TreeSide(1, skills), 4);
    const used = runnerOf();
    used.play(world, ['combat', 'combat'], ['combat', 'combat'], 250, 0);
    expect(used.play(between, ['secure', 'navigate'], ['navigate', 'navigate'], 250, 0)).toBe(runnerOf().play(between, ['secure', 'navigate'], ['navigate', 'navigate'], 250, 0));
    const label = () => plannerChoice(TEST_PLATFORM, between, 1, ['secure', 'combat'], { seed: 4, opponentSkills: ['navigate', 'combat'] });
    expect(await label()).toEqual(await label());
  });
});

describe('the planner team', () => {
  it('reads its settings and refuses a bad one by name', () => {
    expect(resolveTeam('planner:opponent=flat:horizon=2:rollouts=4').variant.settings).toEqual({ opponent: 'flat', horizon: 2, rollouts: 4 });
    expect(() => resolveTeam('planner:opponent=llm')).toThrow(/opponent: must be one of bt, bt-scripted, flat, heuristic/);
    expect(() => resolveTeam('planner:rollouts=1.5')).toThrow(/rollouts/);
    expect(teamEntry('planner').description).toContain('planner:every=1:horizon=5:opponent=bt:rollouts=1:search=agent');
  });

  it('needs the flat model only when it models a flat opponent', async () => {
    const needs = (text: string) => teamEntry('planner').needs(TEST_PLATFORM, resolveTeam(text).variant);
    expect((await needs('planner')).models).not.toContain('flat');
    expect((await needs('planner:opponent=flat')).models).toContain('flat');
  });

  it('plays its defaults the same way twice, records its plans, and its replay verifies from them without planning', async () => {
    const play = () => runMatch({ blue: 'bt', red: 'planner', seed: 21, config: SHORT }, { platform: TEST_PLATFORM });
    const first = await play();
    const second = await play();
    expect(second.summary().hash).toBe(first.summary().hash);
    const replay = first.replay();
    const plans = replay.decisions.filter((d) => d.team === 1);
    expect(plans.length).toBeGreaterThan(0);
    expect(plans.every((d) => d.source === 'planner')).toBe(true);
    expect(plans.some((d) => d.rationale?.startsWith('planned '))).toBe(true);
    expect(plannerOf(first.controllers[1])!.counters.rollouts).toBeGreaterThan(0);
    const result = await verifyReplayWithModels(replay, { models: TEST_PLATFORM.models });
    expect(result.problems).toEqual([]);
    expect(result.sides.red.checked).toBe(true);
  });
});
