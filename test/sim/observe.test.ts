import { describe, expect, it } from 'vitest';
import { Match } from '../../src/match';
import {
  DEFAULT_CONFIG,
  OBS,
  OBS_SIZE,
  OBS_SPEC,
  RAY_ANGLES_DEG,
  type World,
  canSee,
  distanceBand,
  healthLevel,
  observe,
  teamSituation,
  timeBand,
} from '../../src/sim';
import { ZONE, arenaConfig, place, remove, run, scenario, testConfig } from '../helpers/world';
import { TEST_PLATFORM } from '../helpers/platform';

const DIAGONAL = Math.hypot(DEFAULT_CONFIG.arena.width, DEFAULT_CONFIG.arena.height);
const F32 = 1e-6;

function obsOf(world: World, id: number): Float32Array {
  return observe(world, id, new Float32Array(OBS_SIZE));
}

describe('observation spec', () => {
  it('has 20 entries indexed 0..19 with unique names and sane ranges', () => {
    expect(OBS_SIZE).toBe(20);
    expect(OBS_SPEC.map((e) => e.index)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(new Set(OBS_SPEC.map((e) => e.name)).size).toBe(20);
    for (const e of OBS_SPEC) expect(e.range[0]).toBeLessThan(e.range[1]);
    // The named indices agree with the spec's names.
    for (const [name, index] of Object.entries(OBS)) {
      if (name === 'firstRay' || name === 'rayCount') continue;
      expect(OBS_SPEC[index]!.name).toBe(name);
    }
    expect(OBS.firstRay + OBS.rayCount).toBe(OBS_SIZE);
    expect(RAY_ANGLES_DEG).toHaveLength(7);
  });
});

describe('observe() on constructed worlds', () => {
  it('an enemy behind a wall is not visible; in the open it is, with distance and a left bearing', () => {
    const world = scenario(arenaConfig());
    remove(world, 3);
    place(world, 0, 7, 5, 0);
    place(world, 2, 11, 5); // behind the wall at x 8.5..9.5, y 3..7
    let obs = obsOf(world, 0);
    expect(canSee(world, world.agents[0]!, world.agents[2]!)).toBe(false);
    expect([obs[OBS.enemyVisible], obs[OBS.enemyAngle], obs[OBS.enemyDistance]]).toEqual([0, 0, -1]);

    place(world, 2, 7, 9); // 4 m to the left, nothing between
    obs = obsOf(world, 0);
    expect(obs[OBS.enemyVisible]).toBe(1);
    expect(obs[OBS.enemyDistance]).toBeCloseTo(4 / DIAGONAL, 6);
    expect(obs[OBS.enemyAngle]).toBeCloseTo(0.5, 6);
  });

  it('enemies are visible only within vision range and alive; the nearest visible one is reported', () => {
    const world = scenario();
    remove(world, 3);
    place(world, 0, 5, 10, 0);
    place(world, 2, 5 + DEFAULT_CONFIG.visionRange + 0.1, 10);
    expect(obsOf(world, 0)[OBS.enemyVisible]).toBe(0);
    place(world, 2, 5 + DEFAULT_CONFIG.visionRange - 0.1, 10);
    expect(obsOf(world, 0)[OBS.enemyVisible]).toBe(1);

    world.agents[3]!.alive = true;
    world.agents[3]!.health = 100;
    place(world, 3, 5, 4); // nearer, to the right
    let obs = obsOf(world, 0);
    expect(obs[OBS.enemyDistance]).toBeCloseTo(6 / DIAGONAL, 6);
    expect(obs[OBS.enemyAngle]).toBeCloseTo(-0.5, 6);

    remove(world, 3);
    place(world, 3, 5, 4);
    obs = obsOf(world, 0);
    expect(obs[OBS.enemyDistance]).toBeCloseTo((DEFAULT_CONFIG.visionRange - 0.1) / DIAGONAL, 6);
  });

  it('zone: distance, bearing (0 ahead, +-1 behind) and the in-zone flag', () => {
    const world = scenario();
    place(world, 0, ZONE.x - 6, ZONE.y, 0);
    place(world, 1, ZONE.x + 1, ZONE.y, 0);
    run(world, 1);
    const a = obsOf(world, 0);
    expect(a[OBS.zoneDistance]).toBeCloseTo(6 / DIAGONAL, 6);
    expect(a[OBS.zoneAngle]).toBeCloseTo(0, 6);
    expect(a[OBS.inZone]).toBe(0);
    const b = obsOf(world, 1);
    expect(Math.abs(b[OBS.zoneAngle]!)).toBeCloseTo(1, 6);
    expect(b[OBS.inZone]).toBe(1);
  });

  it('ally: distance and bearing while alive, -1 and 0 while eliminated', () => {
    const world = scenario();
    place(world, 0, 10, 10, 0);
    place(world, 1, 10, 13);
    let obs = obsOf(world, 0);
    expect(obs[OBS.allyDistance]).toBeCloseTo(3 / DIAGONAL, 6);
    expect(obs[OBS.allyAngle]).toBeCloseTo(0.5, 6);
    remove(world, 1);
    obs = obsOf(world, 0);
    expect([obs[OBS.allyDistance], obs[OBS.allyAngle]]).toEqual([-1, 0]);
  });

  it('pickups: the nearest present one; 0, 0 and -1 when none is present', () => {
    const world = scenario();
    const [p0, p1] = DEFAULT_CONFIG.pickups.positions;
    place(world, 0, p0!.x + 3, p0!.y, Math.PI);
    let obs = obsOf(world, 0);
    expect([obs[OBS.pickupAvailable], obs[OBS.pickupAngle]]).toEqual([1, 0]);
    expect(obs[OBS.pickupDistance]).toBeCloseTo(3 / DIAGONAL, 6);

    world.pickups[0]!.respawnTimer = 10;
    place(world, 0, p0!.x + 3, p0!.y, Math.PI);
    obs = obsOf(world, 0);
    expect(obs[OBS.pickupAvailable]).toBe(1);
    expect(obs[OBS.pickupDistance]).toBeCloseTo(Math.hypot(p1!.x - p0!.x - 3, p1!.y - p0!.y) / DIAGONAL, 6);

    world.pickups[1]!.respawnTimer = 10;
    place(world, 0, p0!.x + 3, p0!.y, Math.PI);
    obs = obsOf(world, 0);
    expect([obs[OBS.pickupAvailable], obs[OBS.pickupAngle], obs[OBS.pickupDistance]]).toEqual([0, 0, -1]);
  });

  it('time remaining and health are fractions', () => {
    const world = scenario();
    place(world, 0, 10, 10, 0, 40);
    expect(obsOf(world, 0)[OBS.timeRemaining]).toBe(1);
    expect(obsOf(world, 0)[OBS.health]).toBeCloseTo(0.4, 6);
    run(world, 1500);
    expect(obsOf(world, 0)[OBS.timeRemaining]).toBeCloseTo(0.5, 6);
  });

  it('rays measure free distance to arena edges and walls, / rayLength, capped at 1', () => {
    const open = scenario();
    place(open, 0, 28, 15, 0);
    const obs = obsOf(open, 0);
    const ray = (deg: number) => obs[OBS.firstRay + RAY_ANGLES_DEG.indexOf(deg as (typeof RAY_ANGLES_DEG)[number])]!;
    expect(ray(0)).toBeCloseTo(0.4, 6); // 4 m to the right edge
    expect(ray(90)).toBeCloseTo(0.5, 6); // 5 m to the top edge
    expect(ray(-90)).toBe(1); // 15 m down, capped at the 10 m ray
    expect(ray(30)).toBeCloseTo(4 / Math.cos(Math.PI / 6) / 10, 6);

    const walled = scenario(arenaConfig());
    place(walled, 0, 7, 5, 0);
    expect(obsOf(walled, 0)[OBS.firstRay + 3]).toBeCloseTo(0.15, 6); // wall face at x 8.5
  });

  it('an observation is recomputed after each step, and written at the requested offset', () => {
    const world = scenario();
    place(world, 0, 10, 10, 0);
    const before = obsOf(world, 0)[OBS.zoneDistance]!;
    run(world, 10, { 0: { move: 1 } });
    expect(obsOf(world, 0)[OBS.zoneDistance]).toBeLessThan(before);
    const out = new Float32Array(3 * OBS_SIZE).fill(7);
    observe(world, 0, out, OBS_SIZE);
    expect(out[OBS_SIZE - 1]).toBe(7);
    expect(out[2 * OBS_SIZE]).toBe(7);
    expect(Array.from(out.subarray(OBS_SIZE, 2 * OBS_SIZE))).toEqual(Array.from(obsOf(world, 0)));
  });
});

describe('observations over whole matches', () => {
  it('every observation at every skill tick stays in its spec range; distances are -1 exactly when absent', async () => {
    const obs = new Float32Array(OBS_SIZE);
    const problems: string[] = [];
    const seen = { allyDead: 0, noPickup: 0, enemyVisible: 0, enemyHidden: 0, inZone: 0, samples: 0 };
    for (const [blue, red, seed] of [
      ['bt-scripted', 'heuristic', 1],
      ['heuristic', 'bt-scripted', 2],
      ['bt-scripted', 'heuristic', 3],
    ] as const) {
      const match = await Match.create({ blue, red, seed }, { platform: TEST_PLATFORM, record: false });
      const { world } = match;
      while (!match.done) {
        if (world.tick % world.config.skillEveryTicks === 0) {
          for (const me of world.agents) {
            observe(world, me.id, obs);
            seen.samples++;
            const where = `${blue}/${red} seed ${seed} tick ${world.tick} agent ${me.id}`;
            OBS_SPEC.forEach((e) => {
              const v = obs[e.index]!;
              if (!(v >= e.range[0] && v <= e.range[1])) problems.push(`${where}: ${e.name} = ${v}`);
            });
            const ally = world.agents.find((a) => a.team === me.team && a !== me)!;
            const enemyVisible = world.agents.some((a) => a.team !== me.team && canSee(world, me, a));
            const pickupPresent = world.pickups.some((p) => p.respawnTimer === 0);
            const checks: [string, boolean][] = [
              ['allyDistance -1 iff ally dead', (obs[OBS.allyDistance] === -1) === !ally.alive],
              ['pickupDistance -1 iff none present', (obs[OBS.pickupDistance] === -1) === !pickupPresent],
              ['pickupAvailable', obs[OBS.pickupAvailable] === (pickupPresent ? 1 : 0)],
              ['enemyDistance -1 iff none visible', (obs[OBS.enemyDistance] === -1) === !enemyVisible],
              ['enemyVisible', obs[OBS.enemyVisible] === (enemyVisible ? 1 : 0)],
              ['inZone', obs[OBS.inZone] === (me.inZone ? 1 : 0)],
              ['health', Math.abs(obs[OBS.health]! - me.health / 100) < F32],
              ['distances otherwise >= 0', [OBS.allyDistance, OBS.pickupDistance, OBS.enemyDistance].every((i) => obs[i] === -1 || obs[i]! >= 0)],
            ];
            for (const [name, ok] of checks) if (!ok) problems.push(`${where}: ${name}`);
            if (!ally.alive) seen.allyDead++;
            if (!pickupPresent) seen.noPickup++;
            if (enemyVisible) seen.enemyVisible++;
            else seen.enemyHidden++;
            if (me.inZone) seen.inZone++;
          }
        }
        const pending = match.advance();
        if (pending) await pending;
      }
    }
    expect(problems.slice(0, 20)).toEqual([]);
    // The matches exercised every case the checks cover.
    for (const [name, count] of Object.entries(seen)) expect(count, name).toBeGreaterThan(0);
  });
});

describe('situations (what strategists read)', () => {
  it('health levels at the study thresholds (66% / 33%)', () => {
    expect(healthLevel(1)).toBe('HIGH');
    expect(healthLevel(0.67)).toBe('HIGH');
    expect(healthLevel(0.5)).toBe('MEDIUM');
    expect(healthLevel(0.34)).toBe('MEDIUM');
    expect(healthLevel(0.2)).toBe('LOW');
    expect(healthLevel(0)).toBe('LOW');
  });

  it('distance bands at 0.15 / 0.30 of the diagonal; time bands at a half and a quarter', () => {
    expect(distanceBand(0)).toBe('NEAR');
    expect(distanceBand(0.1)).toBe('NEAR');
    expect(distanceBand(0.2)).toBe('MID');
    expect(distanceBand(0.5)).toBe('FAR');
    expect(distanceBand(1)).toBe('FAR');
    expect(timeBand(1)).toBe('PLENTY');
    expect(timeBand(0.4)).toBe('LIMITED');
    expect(timeBand(0.1)).toBe('URGENT');
    expect(timeBand(0)).toBe('URGENT');
  });

  it('teamSituation discretises a constructed world', () => {
    const world = scenario();
    world.progress[0] = 200;
    world.progress[1] = 100;
    place(world, 0, ZONE.x, ZONE.y, 0, 20);
    place(world, 1, ZONE.x - 4, ZONE.y, 0, 60);
    place(world, 2, ZONE.x + 10, ZONE.y); // visible, 10 m / 37.7 m = MID from agent 0
    remove(world, 3);
    run(world, 1);
    const s = teamSituation(world, 0);
    expect(s.teamName).toBe('blue');
    expect(s.agents.map((a) => a.health)).toEqual(['LOW', 'MEDIUM']);
    expect(s.agents[0]).toMatchObject({ agent: 0, alive: true, inZone: true, zone: 'NEAR', enemyVisible: true, enemy: 'MID', pickupPresent: true });
    expect(s.agents[1]).toMatchObject({ inZone: false, zone: 'NEAR', enemy: 'FAR' }); // 14 m away
    expect(s.allyDistance).toBe('NEAR');
    expect(s.progressPercent).toBe(Math.round((100 * 201) / 400));
    expect(s.enemyProgressPercent).toBe(25);
    expect(s.zoneStatus).toBe('blue');
    expect(s.time).toBe('PLENTY');
    expect(s.secondsLeft).toBeCloseTo(60 - 1 / 50, 9);

    const red = teamSituation(world, 1);
    expect(red.allyDistance).toBeNull();
    expect(red.agents[1]!.alive).toBe(false);
  });

  it('no visible enemy means enemy null; no pickup means pickup null', () => {
    const world = scenario(testConfig({ visionRange: 1 }));
    world.pickups.forEach((p) => (p.respawnTimer = 50));
    const s = teamSituation(world, 0);
    for (const a of s.agents) expect(a).toMatchObject({ enemyVisible: false, enemy: null, pickupPresent: false, pickup: null });
  });
});
