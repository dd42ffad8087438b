import { describe, expect, it } from 'vitest';
import { type Action, type World, idleAction, step } from '../../src/sim';
import { SKILL_IDS, type SkillId, type SkillSet } from '../../src/skills';
import { type Decision, FlatController, HierarchicalController, type Strategist, type StrategistAnswer } from '../../src/teams';
import { remove, scenario } from '../helpers/world';

/** Skills that write a recognisable move value (navigate 0.1, combat 0.2, ...), counting agents served. */
function markerSkills(): { skills: SkillSet; served: Record<SkillId, number> } {
  const served = { navigate: 0, combat: 0, secure: 0, retreat: 0 };
  const skills = Object.fromEntries(
    SKILL_IDS.map((id, i) => [
      id,
      {
        name: id,
        kind: 'test',
        act(_obs: Float32Array, count: number, out: readonly Action[]) {
          served[id] += count;
          for (let k = 0; k < count; k++) out[k]!.move = 0.1 * (i + 1);
        },
      },
    ]),
  ) as unknown as SkillSet;
  return { skills, served };
}

class ScriptedStrategist implements Strategist {
  readonly source = 'rule' as const;
  readonly calls: number[] = [];
  constructor(
    readonly periodTicks: number,
    private readonly answer: (world: World) => StrategistAnswer | null,
  ) {}
  decide(world: World): StrategistAnswer | null {
    this.calls.push(world.tick);
    return this.answer(world);
  }
}

function play(world: World, controller: HierarchicalController | FlatController, ticks: number, onTick?: (a: Action[]) => void) {
  const actions = world.agents.map(() => idleAction());
  for (let i = 0; i < ticks; i++) {
    controller.act(world, actions);
    onTick?.(actions);
    step(world, actions);
  }
}

describe('HierarchicalController', () => {
  it('asks its strategist exactly every periodTicks ticks and reports only decisions that change skills', () => {
    const world = scenario();
    const { skills } = markerSkills();
    const decisions: Decision[] = [];
    const strategist = new ScriptedStrategist(7, (w) => (w.tick < 20 ? { skills: ['combat', 'secure'] } : { skills: ['retreat', 'secure'], rationale: 'hurt' }));
    const c = new HierarchicalController('test', 0, strategist, skills, (d) => decisions.push(d));
    play(world, c, 50);
    expect(strategist.calls).toEqual([0, 7, 14, 21, 28, 35, 42, 49]);
    expect(decisions).toEqual([
      { tick: 0, team: 0, skills: ['combat', 'secure'], source: 'rule' },
      { tick: 21, team: 0, skills: ['retreat', 'secure'], source: 'rule', rationale: 'hurt' },
    ]);
    expect(c.currentSkills).toEqual(['retreat', 'secure']);
  });

  it('runs skills every 4 ticks, holds their actions in between, and writes only its own agents', () => {
    const world = scenario();
    const { skills, served } = markerSkills();
    const c = new HierarchicalController('test', 1, new ScriptedStrategist(1000, () => ({ skills: ['secure', 'combat'] })), skills);
    const seen: number[][] = [];
    play(world, c, 12, (a) => seen.push(a.map((x) => x.move)));
    // Agents 2 and 3 are red: secure (0.3) and combat (0.2); blue untouched.
    for (const moves of seen) expect(moves).toEqual([0, 0, 0.1 * 3, 0.1 * 2]);
    expect(served).toEqual({ navigate: 0, combat: 3, secure: 3, retreat: 0 });
  });

  it('a null answer keeps the current skills; a wrong-sized answer is an error', () => {
    const world = scenario();
    const { skills } = markerSkills();
    const keep = new HierarchicalController('test', 0, new ScriptedStrategist(4, () => null), skills);
    play(world, keep, 9);
    expect(keep.currentSkills).toEqual(['navigate', 'navigate']);

    const bad = new HierarchicalController('test', 0, new ScriptedStrategist(4, () => ({ skills: ['combat'] })), skills);
    expect(() => play(scenario(), bad, 1)).toThrow(/1 skills for 2 agents/);
  });

  it('eliminated agents get idle actions and are not given to any skill', () => {
    const world = scenario();
    remove(world, 0);
    const { skills, served } = markerSkills();
    const c = new HierarchicalController('test', 0, new ScriptedStrategist(25, () => ({ skills: ['combat', 'combat'] })), skills);
    let last: Action[] = [];
    play(world, c, 4, (a) => (last = a.map((x) => ({ ...x }))));
    expect(last[0]).toEqual(idleAction());
    expect(last[1]!.move).toBeCloseTo(0.2, 12);
    expect(served.combat).toBe(1);
  });
});

describe('FlatController', () => {
  it('runs one policy for all its agents at the skill rate and has no skills', () => {
    const world = scenario();
    const { skills, served } = markerSkills();
    const c = new FlatController('flat-test', 0, skills.retreat);
    let last: Action[] = [];
    play(world, c, 8, (a) => (last = a.map((x) => ({ ...x }))));
    expect(served.retreat).toBe(4);
    expect(last.map((a) => a.move)).toEqual([0.4, 0.4, 0, 0]);
    expect(c.currentSkills).toEqual([null, null]);
  });
});
