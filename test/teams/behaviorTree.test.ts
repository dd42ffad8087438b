import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXAM_SET_PATH, parseExamSet } from '../../src/llm';
import { DEFAULT_CONFIG, type World, createWorld, idleAction, step } from '../../src/sim';
import type { SkillId } from '../../src/skills';
import { BehaviorTreeStrategist, createTeam, rulesChoice, rulesJudge } from '../../src/teams';
import { ZONE, place, remove, scenario } from '../helpers/world';
import { TEST_PLATFORM } from '../helpers/platform';

/** Blue's agents 0 and 1 decide; red (2, 3) is out of play unless a test puts it back. */
function setup(): { world: World; bt: BehaviorTreeStrategist; decide: () => SkillId[] } {
  const world = scenario();
  remove(world, 2);
  remove(world, 3);
  const bt = new BehaviorTreeStrategist(4);
  let current: SkillId[] = ['navigate', 'navigate'];
  const decide = () => {
    world.tick++; // a new tick: fresh observations, as between real decisions
    current = [...bt.decide(world, 0, current)!.skills];
    return current;
  };
  return { world, bt, decide };
}

const FAR_A = { x: 6, y: 10 }; // 10 m from the zone: FAR
const FAR_B = { x: 6, y: 14 };

describe('BehaviorTreeStrategist', () => {
  it('navigates when nothing else applies', () => {
    const { world, decide } = setup();
    place(world, 0, FAR_A.x, FAR_A.y, 0);
    place(world, 1, FAR_B.x, FAR_B.y, 0);
    expect(decide()).toEqual(['navigate', 'navigate']);
  });

  it('retreats when health is LOW and a pickup is present, even inside the zone', () => {
    const { world, decide } = setup();
    place(world, 0, FAR_A.x, FAR_A.y, 0, 20);
    place(world, 1, FAR_B.x, FAR_B.y, 0);
    expect(decide()).toEqual(['retreat', 'navigate']);
    place(world, 0, ZONE.x, ZONE.y, 0, 20);
    expect(decide()).toEqual(['retreat', 'navigate']);
  });

  it('does not retreat when LOW with no pickup present, nor when only MEDIUM', () => {
    const { world, decide } = setup();
    world.pickups.forEach((p) => (p.respawnTimer = 100));
    place(world, 0, FAR_A.x, FAR_A.y, 0, 20);
    place(world, 1, FAR_B.x, FAR_B.y, 0);
    expect(decide()[0]).toBe('navigate');
    place(world, 0, ZONE.x, ZONE.y, 0, 20);
    expect(decide()[0]).toBe('secure');

    world.pickups.forEach((p) => (p.respawnTimer = 0));
    place(world, 0, FAR_A.x, FAR_A.y, 0, 50);
    expect(decide()[0]).toBe('navigate');
    // Healed back up: the same agent goes back to its normal choice.
    place(world, 0, FAR_A.x, FAR_A.y, 0, 20);
    expect(decide()[0]).toBe('retreat');
    place(world, 0, FAR_A.x, FAR_A.y, 0, 100);
    expect(decide()[0]).toBe('navigate');
  });

  it('with both agents in the zone exactly one secures and the other fights (one-securer rule)', () => {
    const { world, decide } = setup();
    place(world, 0, ZONE.x - 1, ZONE.y, 0);
    place(world, 1, ZONE.x + 1, ZONE.y, 0);
    expect(decide()).toEqual(['secure', 'combat']);
    // The claim is stable from one decision to the next.
    expect(decide()).toEqual(['secure', 'combat']);
    expect(decide()).toEqual(['secure', 'combat']);
  });

  it('near the zone (not inside) counts too, and the claim belongs to whoever secured first', () => {
    const { world, decide } = setup();
    place(world, 0, FAR_A.x, FAR_A.y, 0);
    place(world, 1, ZONE.x + 4, ZONE.y, 0); // 4 m: NEAR, outside the 2.5 m circle
    expect(decide()).toEqual(['navigate', 'secure']);
    place(world, 0, ZONE.x - 1, ZONE.y, 0);
    expect(decide()).toEqual(['combat', 'secure']);
  });

  it('fights a visible enemy when far from the zone', () => {
    const { world, decide } = setup();
    world.agents[2]!.alive = true;
    world.agents[2]!.health = 100;
    place(world, 2, 4, 12);
    place(world, 0, 2, 10, 0);
    place(world, 1, 2, 14, 0);
    expect(decide()).toEqual(['combat', 'combat']);
  });

  it('the securer releases its claim when it dies, and does not take it back on return', () => {
    const { world, decide } = setup();
    place(world, 0, ZONE.x - 1, ZONE.y, 0);
    place(world, 1, ZONE.x + 1, ZONE.y, 0);
    expect(decide()).toEqual(['secure', 'combat']);
    remove(world, 0);
    // The dead agent keeps its skill; the living one takes the zone.
    expect(decide()).toEqual(['secure', 'secure']);
    world.agents[0]!.alive = true;
    world.agents[0]!.health = 100;
    place(world, 0, ZONE.x - 1, ZONE.y, 0);
    expect(decide()).toEqual(['combat', 'secure']);
  });

  it('the securer releases its claim when it leaves the zone or retreats', () => {
    const { world, decide } = setup();
    place(world, 0, ZONE.x - 1, ZONE.y, 0);
    place(world, 1, ZONE.x + 1, ZONE.y, 0);
    expect(decide()).toEqual(['secure', 'combat']);
    place(world, 0, FAR_A.x, FAR_A.y, 0);
    expect(decide()).toEqual(['navigate', 'secure']);
    place(world, 0, ZONE.x - 1, ZONE.y, 0);
    expect(decide()).toEqual(['combat', 'secure']);
    // Slot 1 gives the zone up to retreat; slot 0 has already decided this round, so it
    // takes the claim at the next decision (4 ticks later).
    place(world, 1, ZONE.x + 1, ZONE.y, 0, 20);
    expect(decide()).toEqual(['combat', 'retreat']);
    expect(decide()).toEqual(['secure', 'retreat']);
  });

  it('records the situation it decided on', () => {
    const { world, bt, decide } = setup();
    place(world, 0, ZONE.x, ZONE.y, 0, 20);
    decide();
    expect(bt.lastSituation?.agents[0]?.health).toBe('LOW');
    expect(bt.lastSituation?.team).toBe(0);
  });

  it('in real bt-scripted matches no two living teammates are ever told to secure', async () => {
    for (const seed of [1, 2, 3]) {
      const world = createWorld(seed, DEFAULT_CONFIG);
      const ctx = (team: 0 | 1) => ({ team, seed, config: DEFAULT_CONFIG, platform: TEST_PLATFORM });
      const teams = [await createTeam('bt-scripted', ctx(0)), await createTeam('bt-scripted', ctx(1))];
      const actions = world.agents.map(() => idleAction());
      let secureSeen = 0;
      while (!world.outcome) {
        for (const team of teams) {
          team.act(world, actions);
          if (world.tick % world.config.skillEveryTicks !== 0) continue;
          const members = world.agents.filter((a) => a.team === team.team);
          const securing = members.filter((a, slot) => a.alive && team.currentSkills[slot] === 'secure').length;
          expect(securing).toBeLessThanOrEqual(1);
          secureSeen += securing;
        }
        step(world, actions);
      }
      expect(secureSeen).toBeGreaterThan(0);
    }
  });
});

describe('rulesChoice (the strategist exam\'s labels)', () => {
  it('is what the running tree chooses, at every decision of real matches', async () => {
    const { HierarchicalController, rulesChoice } = await import('../../src/teams');
    const { Match } = await import('../../src/match');
    const { SCRIPTED_SKILLS } = await import('../../src/skills');
    const { teamSituation } = await import('../../src/sim');
    let compared = 0;
    const mismatches: string[] = [];
    for (const seed of [1, 2, 3]) {
      const tree = new BehaviorTreeStrategist(DEFAULT_CONFIG.skillEveryTicks);
      const checked = {
        source: tree.source,
        periodTicks: tree.periodTicks,
        decide(world: World, team: 0 | 1, current: readonly SkillId[]) {
          const expected = rulesChoice(teamSituation(world, team), current);
          const answer = tree.decide(world, team, current);
          compared++;
          if (answer && answer.skills.join() !== expected.join()) mismatches.push(`seed ${seed} tick ${world.tick}: tree ${answer.skills} vs rules ${expected}`);
          return answer;
        },
      };
      const match = await Match.create(
        { blue: 'bt-scripted', red: 'random', seed },
        { platform: TEST_PLATFORM, record: false, controllers: { blue: (ctx) => new HierarchicalController('bt-scripted', ctx.team, checked, SCRIPTED_SKILLS, ctx.onDecision) } },
      );
      while (!match.done) match.advance();
    }
    expect(compared).toBeGreaterThan(300);
    expect(mismatches).toEqual([]);
  });
});

describe('rulesJudge', () => {
  it("gives rulesChoice's answer on every exam situation, one tree reused in order", () => {
    const set = parseExamSet(readFileSync(EXAM_SET_PATH, 'utf8'), EXAM_SET_PATH);
    const judge = rulesJudge();
    const reused = set.items.map((item) => judge(item.situation, item.current));
    expect(reused).toEqual(set.items.map((item) => rulesChoice(item.situation, item.current)));
    // The set's labels are the rules' choices, so both must give them.
    expect(reused).toEqual(set.items.map((item) => item.rules));
  });
});
