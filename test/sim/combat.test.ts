import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, tickTimings } from '../../src/sim';
import { ZONE, ofType, place, run, scenario, testConfig } from '../helpers/world';

const T = tickTimings(DEFAULT_CONFIG);
const FIRE = { fire: 1 } as const;

describe('hitscan weapon (spread 0)', () => {
  it('an agent facing an enemy within range hits it for 10 damage', () => {
    const world = scenario();
    place(world, 0, 10, 10, 0);
    place(world, 2, 15, 10);
    const events = run(world, 1, { 0: FIRE });
    const [shot] = ofType(events, 'shot');
    expect(shot).toMatchObject({ agent: 0, target: 2, fromX: 10, fromY: 10 });
    // The shot ends on the target's body, its radius short of the centre.
    expect(shot!.toX).toBeCloseTo(15 - DEFAULT_CONFIG.agent.radius, 9);
    expect(ofType(events, 'hit')).toEqual([{ type: 'hit', tick: 1, agent: 0, target: 2, damage: 10, health: 90 }]);
    expect(world.agents[2]!.health).toBe(90);
    expect(world.agents[0]!.stats).toMatchObject({ shots: 1, hits: 1, damageDealt: 10 });
  });

  it('hits within range and misses beyond it; a miss travels exactly the range', () => {
    const { range } = DEFAULT_CONFIG.weapon;
    const near = scenario();
    place(near, 0, 4, 10, 0);
    place(near, 2, 4 + range, 10); // body edge at range - radius
    expect(ofType(run(near, 1, { 0: FIRE }), 'hit')).toHaveLength(1);

    const far = scenario();
    place(far, 0, 4, 10, 0);
    place(far, 2, 4 + range + 1, 10); // body edge at range + 0.5
    const events = run(far, 1, { 0: FIRE });
    const [shot] = ofType(events, 'shot');
    expect(shot!.target).toBe(-1);
    expect(Math.hypot(shot!.toX - shot!.fromX, shot!.toY - shot!.fromY)).toBeCloseTo(range, 9);
    expect(ofType(events, 'hit')).toEqual([]);
    expect(far.agents[2]!.health).toBe(100);
  });

  it('a shot facing away or to the side misses', () => {
    const world = scenario();
    place(world, 0, 10, 10, Math.PI / 2);
    place(world, 2, 15, 10);
    const events = run(world, 1, { 0: FIRE });
    expect(ofType(events, 'shot')[0]!.target).toBe(-1);
    expect(world.agents[2]!.health).toBe(100);
  });

  it('a wall between blocks the shot, and the shot ends at the wall', () => {
    const wall = { minX: 12, minY: 8, maxX: 13, maxY: 12 };
    const world = scenario(testConfig({ walls: [wall] }));
    place(world, 0, 10, 10, 0);
    place(world, 2, 15, 10);
    const events = run(world, 1, { 0: FIRE });
    const [shot] = ofType(events, 'shot');
    expect(shot!.target).toBe(-1);
    expect(shot!.toX).toBeCloseTo(wall.minX, 9);
    expect(shot!.toY).toBeCloseTo(10, 9);
    expect(world.agents[2]!.health).toBe(100);
  });

  it('the 0.25 s cooldown (13 ticks) limits the rate of fire', () => {
    expect(T.fireCooldown).toBe(13);
    const world = scenario();
    place(world, 0, 10, 10, 0);
    const shots = ofType(run(world, 100, { 0: FIRE }), 'shot');
    const ticks = shots.map((s) => s.tick);
    expect(ticks[0]).toBe(1);
    expect(ticks.slice(1).map((t, i) => t - ticks[i]!)).toEqual(Array(ticks.length - 1).fill(13));
    expect(shots).toHaveLength(Math.ceil(100 / 13));
    expect(world.agents[0]!.stats.shots).toBe(shots.length);
  });

  it('friendly agents are never hit: a lone ally in the line of fire is a miss, an enemy behind it is hit', () => {
    const world = scenario();
    place(world, 0, 10, 10, 0);
    place(world, 1, 13, 10);
    let events = run(world, 1, { 0: FIRE });
    expect(ofType(events, 'shot')[0]!.target).toBe(-1);
    expect(world.agents[1]!.health).toBe(100);

    place(world, 2, 16, 10);
    events = run(world, 13, { 0: FIRE });
    expect(ofType(events, 'shot').map((s) => s.target)).toEqual([2]);
    expect(world.agents[1]!.health).toBe(100);
    expect(world.agents[2]!.health).toBe(90);
  });

  it('the nearer of two enemies in line takes the shot', () => {
    const world = scenario();
    place(world, 0, 10, 10, 0);
    place(world, 2, 17, 10);
    place(world, 3, 14, 10);
    run(world, 1, { 0: FIRE });
    expect(world.agents[3]!.health).toBe(90);
    expect(world.agents[2]!.health).toBe(100);
  });

  it('spread scatters shots: at long range with spread some shots miss, with spread 0 none do', () => {
    for (const [spread, expectAllHit] of [
      [0, true],
      [0.1, false],
    ] as const) {
      const world = scenario(testConfig({ spread }));
      place(world, 0, 4, 14, 0);
      place(world, 2, 15, 14, undefined, 1e9); // too healthy to die; outside the zone
      const shots = ofType(run(world, 13 * 40, { 0: FIRE }), 'shot');
      const hits = shots.filter((s) => s.target === 2).length;
      if (expectAllHit) expect(hits).toBe(shots.length);
      else expect(hits).toBeLessThan(shots.length);
    }
  });
});

describe('elimination and respawn', () => {
  it('an elimination halves the victim team progress (floor), with kill and progress events and counted stats', () => {
    const world = scenario();
    world.progress[1] = 301;
    world.progress[0] = 77;
    place(world, 0, 10, 10, 0);
    place(world, 2, 15, 10, undefined, 10);
    const events = run(world, 1, { 0: FIRE });
    const victim = world.agents[2]!;
    expect(victim.alive).toBe(false);
    expect(victim.health).toBe(0);
    expect(ofType(events, 'kill')).toEqual([{ type: 'kill', tick: 1, agent: 0, target: 2 }]);
    expect(world.progress).toEqual([77, 150]);
    expect(ofType(events, 'progress')).toEqual([
      { type: 'progress', tick: 1, team: 1, seconds: 150 / DEFAULT_CONFIG.tickHz, reason: 'elimination' },
    ]);
    expect(victim.stats.deaths).toBe(1);
    expect(world.agents[0]!.stats.kills).toBe(1);
    expect(world.agents[0]!.stats.deaths).toBe(0);
  });

  it('an elimination with no progress to lose reports no progress event', () => {
    const world = scenario();
    place(world, 0, 10, 10, 0);
    place(world, 2, 15, 10, undefined, 10);
    const events = run(world, 1, { 0: FIRE });
    expect(ofType(events, 'kill')).toHaveLength(1);
    expect(ofType(events, 'progress')).toEqual([]);
  });

  it('the killing hit deals only the health left', () => {
    const world = scenario();
    place(world, 0, 10, 10, 0);
    place(world, 2, 15, 10, undefined, 4);
    const events = run(world, 1, { 0: FIRE });
    expect(ofType(events, 'hit')[0]).toMatchObject({ damage: 4, health: 0 });
    expect(world.agents[0]!.stats.damageDealt).toBe(4);
  });

  it('an agent eliminated in the zone leaves it at once', () => {
    const world = scenario();
    place(world, 2, ZONE.x, ZONE.y, undefined, 10);
    run(world, 5);
    expect(world.zoneStatus).toBe('red');
    place(world, 0, ZONE.x - 5, ZONE.y, 0);
    const events = run(world, 1, { 0: FIRE });
    expect(ofType(events, 'zoneLeave').map((e) => e.agent)).toEqual([2]);
    expect(world.zoneStatus).toBe('empty');
    expect(world.progress[1]).toBe(2); // floor(5 / 2)
  });

  it('the victim respawns after 2 s (100 ticks) at its spawn point with full health and a respawn event', () => {
    expect(T.respawnDelay).toBe(100);
    const world = scenario();
    place(world, 0, 10, 10, 0);
    place(world, 3, 15, 10, 1.0, 10); // red slot 1
    run(world, 1, { 0: FIRE });
    const victim = world.agents[3]!;
    expect(victim.alive).toBe(false);
    const killedAt = world.tick;
    const waiting = run(world, T.respawnDelay - 1);
    expect(ofType(waiting, 'respawn')).toEqual([]);
    expect(victim.alive).toBe(false);
    const events = run(world, 1);
    expect(world.tick).toBe(killedAt + T.respawnDelay);
    expect(ofType(events, 'respawn')).toEqual([{ type: 'respawn', tick: world.tick, agent: 3 }]);
    const spawn = DEFAULT_CONFIG.arena.spawns[1][1]!;
    expect(victim).toMatchObject({ alive: true, health: 100, x: spawn.x, y: spawn.y, angle: Math.PI });
  });

  it('a blue agent respawns at the blue spawn facing right', () => {
    const world = scenario();
    place(world, 2, 20, 10, Math.PI);
    place(world, 0, 15, 10, 2, 10); // blue slot 0
    run(world, 1 + T.respawnDelay, { 2: FIRE });
    const spawn = DEFAULT_CONFIG.arena.spawns[0][0]!;
    expect(world.agents[0]).toMatchObject({ alive: true, health: 100, x: spawn.x, y: spawn.y, angle: 0 });
  });

  it('a dead agent can neither fire nor be hit', () => {
    const world = scenario();
    place(world, 0, 10, 10, 0);
    place(world, 2, 15, 10, Math.PI, 10);
    place(world, 3, 18, 10);
    run(world, 1, { 0: FIRE });
    expect(world.agents[2]!.alive).toBe(false);
    // The dead agent tries to fire back; the shooter fires again through where it lies.
    const events = run(world, 13, { 0: FIRE, 2: FIRE });
    const shots = ofType(events, 'shot');
    expect(shots.map((s) => s.agent)).toEqual([0]);
    expect(shots[0]!.target).toBe(3);
    expect(world.agents[0]!.health).toBe(100);
    expect(world.agents[2]!.stats.shots).toBe(0);
  });

  it('two agents that shoot each other on the same tick are both eliminated (simultaneous fire)', () => {
    const world = scenario();
    place(world, 0, 10, 10, 0, 10);
    place(world, 2, 15, 10, Math.PI, 10);
    const events = run(world, 1, { 0: FIRE, 2: FIRE });
    expect(world.agents[0]!.alive).toBe(false);
    expect(world.agents[2]!.alive).toBe(false);
    expect(ofType(events, 'kill').map((k) => [k.agent, k.target]).sort()).toEqual([
      [0, 2],
      [2, 0],
    ]);
    for (const id of [0, 2]) expect(world.agents[id]!.stats).toMatchObject({ kills: 1, deaths: 1 });
  });

  it('simultaneous fire does not depend on agent order: red shooting blue first gives the same result', () => {
    const world = scenario();
    place(world, 1, 10, 10, 0, 10);
    place(world, 3, 15, 10, Math.PI, 10);
    run(world, 1, { 1: FIRE, 3: FIRE });
    expect(world.agents[1]!.alive).toBe(false);
    expect(world.agents[3]!.alive).toBe(false);
  });
});
