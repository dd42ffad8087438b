import { describe, expect, it } from 'vitest';
import { OBS, OBS_SIZE, arenaDiagonal, createWorld, observe, teamSituation } from '../../src/sim';
import { invalidateObservations, place, remove, testConfig, threePerTeam } from '../helpers/world';

/** A three-per-team world without walls, every agent parked far from everyone else. */
function threeWorld() {
  const config = threePerTeam(testConfig());
  const world = createWorld(1, config);
  const parked = [
    [1, 1],
    [1, 19],
    [31, 1],
    [31, 19],
    [16, 1],
    [16, 19],
  ] as const;
  world.agents.forEach((a, i) => place(world, a.id, parked[i]![0], parked[i]![1], a.team === 0 ? 0 : Math.PI));
  return world;
}

const allyOf = (world: ReturnType<typeof threeWorld>, id: number) => {
  const obs = observe(world, id, new Float32Array(OBS_SIZE));
  return { distance: obs[OBS.allyDistance]!, angle: obs[OBS.allyAngle]! };
};

describe('teams of three', () => {
  it('spawns three agents per team at the config\'s spawn points', () => {
    const config = threePerTeam(testConfig());
    const world = createWorld(1, config);
    expect(world.agents.map((a) => [a.team, a.slot])).toEqual([
      [0, 0],
      [0, 1],
      [0, 2],
      [1, 0],
      [1, 1],
      [1, 2],
    ]);
    world.agents.forEach((a) => expect({ x: a.x, y: a.y }).toEqual(config.arena.spawns[a.team][a.slot]));
  });

  it('the observed ally is the nearest living teammate, the lowest slot on a tie', () => {
    const world = threeWorld();
    const diagonal = arenaDiagonal(world.config);
    place(world, 0, 10, 10, 0);
    place(world, 1, 14, 10); // 4 m ahead
    place(world, 2, 10, 12); // 2 m to the left: the nearest
    expect(allyOf(world, 0).distance).toBeCloseTo(2 / diagonal, 6);
    expect(allyOf(world, 0).angle).toBeCloseTo(0.5, 6);

    remove(world, 2);
    expect(allyOf(world, 0).distance).toBeCloseTo(4 / diagonal, 6);
    expect(allyOf(world, 0).angle).toBeCloseTo(0, 6);

    remove(world, 1);
    expect(allyOf(world, 0)).toEqual({ distance: -1, angle: 0 });
  });

  it('two teammates equally near: the lower slot is the ally', () => {
    const world = threeWorld();
    place(world, 0, 10, 10, 0);
    place(world, 1, 10, 7); // 3 m to the right
    place(world, 2, 10, 13); // 3 m to the left
    expect(allyOf(world, 0).angle).toBeCloseTo(-0.5, 6);
    world.agents[1]!.alive = false;
    invalidateObservations(world);
    expect(allyOf(world, 0).angle).toBeCloseTo(0.5, 6);
  });

  it('the situation has one entry per agent and the band of the closest living pair', () => {
    const world = threeWorld();
    place(world, 0, 2, 2);
    place(world, 1, 2, 12); // 10 m from agent 0: 0.27 of the diagonal, MID
    place(world, 2, 20, 12); // 18 m from agent 1, 20.6 m from agent 0: FAR
    const s = teamSituation(world, 0);
    expect(s.agents.map((a) => a.agent)).toEqual([0, 1, 2]);
    expect(s.allyDistance).toBe('MID');

    remove(world, 1); // the MID pair is broken: agents 0 and 2 remain, 20.6 m apart
    expect(teamSituation(world, 0).allyDistance).toBe('FAR');

    remove(world, 2);
    expect(teamSituation(world, 0).allyDistance).toBeNull();
  });
});
