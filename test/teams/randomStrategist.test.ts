import { describe, expect, it } from 'vitest';
import { runMatch } from '../../src/match';
import { createWorld } from '../../src/sim';
import { SKILL_IDS, type SkillId } from '../../src/skills';
import { type Decision, RandomStrategist, type Strategist, createTeam } from '../../src/teams';
import { TEST_PLATFORM } from '../helpers/platform';

function choices(seed: number, n: number): SkillId[][] {
  const world = createWorld(1);
  const strategist = new RandomStrategist(25, seed);
  return Array.from({ length: n }, () => [...strategist.decide(world, 0).skills]);
}

describe('RandomStrategist', () => {
  it('chooses one valid skill per agent, covering all four about evenly', () => {
    const all = choices(7, 400);
    const counts = new Map<SkillId, number>();
    for (const pair of all) {
      expect(pair).toHaveLength(2);
      for (const skill of pair) {
        expect(SKILL_IDS).toContain(skill);
        counts.set(skill, (counts.get(skill) ?? 0) + 1);
      }
    }
    for (const id of SKILL_IDS) expect(counts.get(id) ?? 0).toBeGreaterThan(800 * 0.18);
  });

  it('is seeded: the same seed gives the same choices, another seed others', () => {
    expect(choices(42, 50)).toEqual(choices(42, 50));
    expect(choices(42, 50)).not.toEqual(choices(43, 50));
  });

  it('the random team decides every 25 ticks (0.5 s), and only then', async () => {
    const ctx = { team: 0 as const, seed: 5, config: createWorld(1).config, platform: TEST_PLATFORM };
    const team = await createTeam('random', ctx);
    expect((team as unknown as { strategist: Strategist }).strategist.periodTicks).toBe(25);

    const decisions: Decision[] = [];
    const match = await runMatch({ blue: 'random', red: 'heuristic', seed: 2 }, { platform: TEST_PLATFORM, onDecision: (d) => decisions.push(d) });
    const ticks = match.world.tick;
    expect(decisions.length).toBeGreaterThan(0);
    for (const d of decisions) {
      expect(d.tick % 25).toBe(0);
      expect(d.source).toBe('random');
      expect(d.team).toBe(0);
    }
    // A decision is reported when it changes something: 15 times in 16 for two agents.
    const points = Math.floor((ticks - 1) / 25) + 1;
    expect(decisions.length).toBeGreaterThanOrEqual(Math.floor(points * 0.6));
    expect(decisions.length).toBeLessThanOrEqual(points);
  });

  it('a random team replays the same decisions for the same match seed, and differs for another', async () => {
    const run = async (seed: number) => {
      const decisions: string[] = [];
      await runMatch({ blue: 'heuristic', red: 'random', seed }, { platform: TEST_PLATFORM, record: false, onDecision: (d) => decisions.push(`${d.tick}:${d.skills}`) });
      return decisions;
    };
    const a = await run(11);
    expect(await run(11)).toEqual(a);
    expect(await run(12)).not.toEqual(a);
  });
});
