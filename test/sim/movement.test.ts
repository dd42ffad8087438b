import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, Rng, distanceToWall, tickTimings, wrapAngle } from '../../src/sim';
import { arenaConfig, dist, ofType, place, run, scenario, testConfig } from '../helpers/world';

const { radius: R, speed } = DEFAULT_CONFIG.agent;
const { width: W, height: H } = DEFAULT_CONFIG.arena;
const T = tickTimings(DEFAULT_CONFIG);
const EPS = 1e-9;

describe('movement', () => {
  it('moves at 5 m/s: move=1 for 50 ticks covers 5 m along the facing', () => {
    const world = scenario();
    place(world, 0, 5, 10, 0);
    run(world, 50, { 0: { move: 1 } });
    expect(world.agents[0]!.x).toBeCloseTo(5 + speed, 9);
    expect(world.agents[0]!.y).toBeCloseTo(10, 9);
    expect(world.agents[0]!.speedFraction).toBeCloseTo(1, 12);

    place(world, 1, 20, 10, Math.PI / 2);
    run(world, 50, { 1: { move: -0.5 } });
    expect(world.agents[1]!.y).toBeCloseTo(10 - speed / 2, 9);
    expect(world.agents[1]!.x).toBeCloseTo(20, 9);
  });

  it('strafe +1 moves to the left of the facing', () => {
    const world = scenario();
    place(world, 0, 10, 10, 0);
    run(world, 50, { 0: { strafe: 1 } });
    expect(world.agents[0]!.y).toBeCloseTo(15, 9);
    expect(world.agents[0]!.x).toBeCloseTo(10, 9);
  });

  it('move and strafe together never exceed top speed; inputs are clamped to [-1, 1] and NaN is 0', () => {
    const cases: [number, number, number][] = [
      // move, strafe, metres in one second
      [1, 1, 5],
      [-1, 1, 5],
      [0.6, 0.8, 5],
      [3, 0, 5],
      [3, -7, 5],
      [0.3, 0.4, 2.5],
      [Number.NaN, 0, 0],
    ];
    for (const [move, strafe, metres] of cases) {
      const world = scenario();
      place(world, 0, 16, 10, 0.7);
      run(world, 50, { 0: { move, strafe } }, (w) => {
        expect(w.agents[0]!.speedFraction).toBeLessThanOrEqual(1 + EPS);
      });
      expect(dist(world.agents[0]!, { x: 16, y: 10 })).toBeCloseTo(metres, 9);
    }
  });

  it('turns at 4 rad/s counter-clockwise for +1, keeping the angle in (-PI, PI]', () => {
    const world = scenario();
    place(world, 0, 10, 10, 0);
    run(world, 25, { 0: { turn: 1 } });
    expect(world.agents[0]!.angle).toBeCloseTo(2, 9);
    place(world, 1, 10, 15, 0);
    run(world, 25, { 1: { turn: -0.5 } });
    expect(world.agents[1]!.angle).toBeCloseTo(-1, 9);
    // Turning in place does not move the agent.
    expect(world.agents[1]!.x).toBe(10);
    place(world, 2, 20, 15, 0);
    run(world, 100, { 2: { turn: 1 } }, (w) => {
      expect(w.agents[2]!.angle).toBeGreaterThan(-Math.PI);
      expect(w.agents[2]!.angle).toBeLessThanOrEqual(Math.PI);
    });
    expect(world.agents[2]!.angle).toBeCloseTo(wrapAngle(8), 9);
  });

  it('walls block movement: an agent walking (or dashing) into a wall never overlaps it', () => {
    const world = scenario(arenaConfig());
    const wall = DEFAULT_CONFIG.arena.walls[0]!; // 8.5..9.5 x 3..7
    place(world, 0, 6, 5, 0);
    const check = () => expect(distanceToWall(world.agents[0]!.x, world.agents[0]!.y, wall)).toBeGreaterThanOrEqual(R - EPS);
    run(world, 60, { 0: { move: 1 } }, check);
    expect(world.agents[0]!.x).toBeCloseTo(wall.minX - R, 9);
    expect(world.agents[0]!.y).toBeCloseTo(5, 9);
    // Dash straight in: still stopped at the face.
    run(world, 15, { 0: { move: 1, dash: 1 } }, check);
    expect(world.agents[0]!.x).toBeCloseTo(wall.minX - R, 9);
    // At a slant it slides along the wall instead of passing through.
    place(world, 0, 7.9, 5, 0.5);
    run(world, 30, { 0: { move: 1 } }, check);
    expect(world.agents[0]!.y).toBeGreaterThan(6);
    expect(world.agents[0]!.x).toBeLessThan(wall.minX);
  });

  it('agents stay inside the arena', () => {
    const world = scenario();
    place(world, 0, 2, 2, (-3 * Math.PI) / 4);
    place(world, 3, W - 2, H - 2, Math.PI / 4);
    run(world, 100, { 0: { move: 1, dash: 1 }, 3: { move: 1, dash: 1 } });
    expect(world.agents[0]).toMatchObject({ x: R, y: R });
    expect(world.agents[3]).toMatchObject({ x: W - R, y: H - R });
  });

  it('agents do not overlap each other: walking head-on they stop in contact', () => {
    const world = scenario();
    place(world, 0, 10, 10, 0);
    place(world, 2, 13, 10, Math.PI);
    run(world, 50, { 0: { move: 1 }, 2: { move: 1 } }, (w) => {
      expect(dist(w.agents[0]!, w.agents[2]!)).toBeGreaterThanOrEqual(2 * R - EPS);
    });
    expect(dist(world.agents[0]!, world.agents[2]!)).toBeCloseTo(2 * R, 9);
    // Pushed apart equally: the contact point stays in the middle.
    expect((world.agents[0]!.x + world.agents[2]!.x) / 2).toBeCloseTo(11.5, 9);
  });

  it('two agents placed on the same spot are separated', () => {
    const world = scenario();
    place(world, 0, 10, 10);
    place(world, 1, 10, 10);
    run(world, 1);
    expect(dist(world.agents[0]!, world.agents[1]!)).toBeGreaterThanOrEqual(2 * R - EPS);
  });

  // BUG (src/sim/step.ts, separateAgents): one pass of equal pushes, after which
  // resolveWalls moves the pinned agent straight back, so an agent walking into a
  // teammate or enemy standing against a wall keeps overlapping it by a tick's movement
  // (0.1 m here; down to 0.77 m apart in bt-scripted/heuristic matches). Agents are meant
  // to be solid. Remove `.fails` once separation pushes the free agent the whole way.
  it('an agent pushing another against a wall does not overlap it (solid agents)', () => {
    const wall = { minX: 12, minY: 5, maxX: 13, maxY: 15 };
    const world = scenario(testConfig({ walls: [wall] }));
    place(world, 1, wall.minX - R, 10, 0);
    place(world, 0, wall.minX - R - 2, 10, 0);
    let worst = Infinity;
    run(world, 60, { 0: { move: 1 } }, (w) => {
      worst = Math.min(worst, dist(w.agents[0]!, w.agents[1]!));
      expect(distanceToWall(w.agents[1]!.x, w.agents[1]!.y, wall)).toBeGreaterThanOrEqual(R - EPS);
    });
    expect(worst).toBeGreaterThanOrEqual(2 * R - 1e-6);
  });

  it('dash moves at 3x speed for 0.2 s (10 ticks) in the move direction, then normal speed', () => {
    expect(T.dashDuration).toBe(10);
    const world = scenario();
    place(world, 0, 5, 10, 0);
    const events = run(world, 1, { 0: { move: 1, dash: 1 } });
    expect(ofType(events, 'dash')).toEqual([{ type: 'dash', tick: 1, agent: 0 }]);
    expect(world.agents[0]!.speedFraction).toBeCloseTo(3, 12);
    run(world, 9, { 0: { move: 1 } });
    expect(world.agents[0]!.x).toBeCloseTo(5 + 3, 9); // 10 ticks x 15 m/s x 0.02 s
    run(world, 10, { 0: { move: 1 } });
    expect(world.agents[0]!.x).toBeCloseTo(8 + 1, 9);
    expect(world.agents[0]!.speedFraction).toBeCloseTo(1, 12);
  });

  it('a dash keeps the direction it started in, and without movement input goes along the facing', () => {
    const world = scenario();
    place(world, 0, 10, 10, Math.PI / 2);
    run(world, 10, (w) => (w.tick === 0 ? { 0: { dash: 1 } } : { 0: { turn: 1, strafe: 1 } }));
    expect(world.agents[0]!.x).toBeCloseTo(10, 9);
    expect(world.agents[0]!.y).toBeCloseTo(13, 9);
  });

  it('dash respects its 2 s cooldown (100 ticks) even when held', () => {
    expect(T.dashCooldown).toBe(100);
    const world = scenario();
    place(world, 0, 3, 10, 0);
    const dashes = ofType(run(world, 250, { 0: { dash: 1 } }), 'dash');
    expect(dashes.map((d) => d.tick)).toEqual([1, 101, 201]);
    // The held dash covered 3 x 3 m plus nothing else (no move input).
    expect(world.agents[0]!.x).toBeCloseTo(3 + 9, 9);
  });

  it('random play over the real arena: nobody ever overlaps a wall or leaves the arena', () => {
    // Nobody can win in time, so the whole 1500 ticks are played.
    const world = scenario({ ...arenaConfig(), winHoldSeconds: 1000 });
    const rng = new Rng(99);
    world.agents.forEach((_, i) => place(world, i, 8 + 5 * i, 10, rng.next() * 6));
    const per: Record<number, { move: number; turn: number; strafe: number; dash: number }> = {};
    const problems: string[] = [];
    run(
      world,
      1500,
      (w) => {
        if (w.tick % 20 === 0) {
          for (const a of w.agents) {
            per[a.id] = { move: rng.next() * 2 - 1, turn: rng.next() * 2 - 1, strafe: rng.next() * 2 - 1, dash: rng.next() < 0.1 ? 1 : 0 };
          }
        }
        return per;
      },
      (w) => {
        for (const a of w.agents) {
          if (a.x < R - EPS || a.x > W - R + EPS || a.y < R - EPS || a.y > H - R + EPS) problems.push(`tick ${w.tick}: agent ${a.id} outside`);
          for (const wall of w.config.arena.walls) {
            if (distanceToWall(a.x, a.y, wall) < R - 1e-6) problems.push(`tick ${w.tick}: agent ${a.id} in a wall`);
          }
        }
      },
    );
    expect(world.tick).toBe(1500);
    expect(problems).toEqual([]);
  });
});
