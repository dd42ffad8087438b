import { describe, expect, it } from 'vitest';
import { type World, createWorld } from '../../src/sim';
import type { SkillId } from '../../src/skills';
import { BehaviorTreeStrategist } from '../../src/teams';
import { ZONE, place, remove, testConfig, threePerTeam } from '../helpers/world';

/** Blue's three agents decide; red's are out of play. */
function setup(): { world: World; decide: () => SkillId[] } {
  const world = createWorld(1, threePerTeam(testConfig()));
  for (const id of [3, 4, 5]) remove(world, id);
  const bt = new BehaviorTreeStrategist(4);
  let current: SkillId[] = ['navigate', 'navigate', 'navigate'];
  const decide = () => {
    world.tick++; // a new tick: fresh observations, as between real decisions
    current = [...bt.decide(world, 0, current)!.skills];
    return current;
  };
  return { world, decide };
}

describe('BehaviorTreeStrategist with three agents', () => {
  it('one agent secures; the others near the zone defend it, and the claim passes on when the securer falls', () => {
    const { world, decide } = setup();
    place(world, 0, ZONE.x, ZONE.y, 0);
    place(world, 1, ZONE.x + 1, ZONE.y, 0);
    place(world, 2, ZONE.x, ZONE.y + 1, 0);
    expect(decide()).toEqual(['secure', 'combat', 'combat']);
    expect(decide()).toEqual(['secure', 'combat', 'combat']);

    remove(world, 0);
    const after = decide();
    expect(after.slice(1).filter((s) => s === 'secure')).toHaveLength(1);
    expect(after.slice(1)).toContain('combat');
  });
});
