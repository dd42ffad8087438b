import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, tickTimings } from '../../src/sim';
import { ofType, place, run, scenario } from '../helpers/world';

const T = tickTimings(DEFAULT_CONFIG);
const [P0, P1] = DEFAULT_CONFIG.pickups.positions as [{ x: number; y: number }, { x: number; y: number }];

describe('health pickups', () => {
  it('a hurt agent on a pickup is healed to full; the pickup goes away with a pickup event', () => {
    const world = scenario();
    place(world, 0, P0.x, P0.y, 0, 30);
    const events = run(world, 1);
    expect(world.agents[0]!.health).toBe(100);
    expect(ofType(events, 'pickup')).toEqual([{ type: 'pickup', tick: 1, agent: 0, pickup: 0 }]);
    expect(world.pickups[0]!.respawnTimer).toBe(T.pickupRespawn);
    expect(world.pickups[1]!.respawnTimer).toBe(0);
    expect(world.agents[0]!.stats.pickups).toBe(1);
  });

  it('an agent at full health leaves the pickup where it is', () => {
    const world = scenario();
    place(world, 3, P1.x, P1.y);
    const events = run(world, 50);
    expect(ofType(events, 'pickup')).toEqual([]);
    expect(world.pickups[1]!.respawnTimer).toBe(0);
    expect(world.agents[3]!.stats.pickups).toBe(0);
  });

  it('collects within collectRadius of the centre and not beyond', () => {
    const { collectRadius } = DEFAULT_CONFIG.pickups;
    const world = scenario();
    place(world, 0, P0.x + collectRadius + 0.05, P0.y, 0, 50);
    place(world, 2, P1.x, P1.y - collectRadius + 0.05, 0, 50);
    run(world, 1);
    expect(world.agents[0]!.health).toBe(50);
    expect(world.agents[2]!.health).toBe(100);
    expect(world.pickups.map((p) => p.respawnTimer > 0)).toEqual([false, true]);
  });

  it('comes back after 10 s (500 ticks) with a pickupReturn event; meanwhile it heals nobody', () => {
    expect(T.pickupRespawn).toBe(500);
    const world = scenario();
    place(world, 0, P0.x, P0.y, 0, 30);
    run(world, 1);
    const takenAt = world.tick;
    // Hurt again and still standing on it: nothing while it is away.
    world.agents[0]!.health = 40;
    const waiting = run(world, T.pickupRespawn - 1);
    expect(ofType(waiting, 'pickupReturn')).toEqual([]);
    expect(ofType(waiting, 'pickup')).toEqual([]);
    expect(world.agents[0]!.health).toBe(40);
    expect(world.pickups[0]!.respawnTimer).toBe(1);
    // Back: returned and, with the hurt agent on it, taken again on the same tick.
    const events = run(world, 1);
    expect(world.tick).toBe(takenAt + T.pickupRespawn);
    expect(ofType(events, 'pickupReturn')).toEqual([{ type: 'pickupReturn', tick: world.tick, pickup: 0 }]);
    expect(ofType(events, 'pickup')).toHaveLength(1);
    expect(world.agents[0]!.health).toBe(100);
    expect(world.agents[0]!.stats.pickups).toBe(2);
  });

  it('a returned pickup stays available when nobody needs it', () => {
    const world = scenario();
    place(world, 0, P0.x, P0.y, 0, 30);
    run(world, 1);
    place(world, 0, 5, 5);
    const events = run(world, T.pickupRespawn + 100);
    expect(ofType(events, 'pickupReturn')).toHaveLength(1);
    expect(world.pickups[0]!.respawnTimer).toBe(0);
  });

  it('two hurt agents on one pickup: only one is healed', () => {
    const world = scenario();
    place(world, 0, P0.x - 0.5, P0.y, 0, 30);
    place(world, 2, P0.x + 0.5, P0.y, 0, 30);
    const events = run(world, 1);
    expect(ofType(events, 'pickup')).toHaveLength(1);
    expect([world.agents[0]!.health, world.agents[2]!.health].sort((a, b) => a - b)).toEqual([30, 100]);
  });
});
