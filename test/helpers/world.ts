/**
 * Helpers for constructed simulation scenarios: custom configs, placing agents by hand,
 * and stepping with explicit actions while collecting events.
 */
import {
  type Action,
  DEFAULT_CONFIG,
  type GameConfig,
  type SimEvent,
  type SimEventType,
  type Wall,
  type World,
  createWorld,
  idleAction,
  step,
} from '../../src/sim';

/** Where the pinned zone of the test configs sits (clear of every wall of OPEN_CONFIG). */
export const ZONE = { x: 16, y: 10 } as const;

/** A zone spot clear of DEFAULT_CONFIG's walls, for scenarios in the real arena. */
export const ARENA_ZONE = { x: 16, y: 10 } as const;

/** Far from the zone, the pickups and each other: where idle agents wait. */
export const PARKED = [
  { x: 2, y: 2 },
  { x: 2, y: 6 },
  { x: 30, y: 2 },
  { x: 30, y: 6 },
] as const;

export interface ConfigOptions {
  readonly walls?: readonly Wall[];
  /** Pin the zone's centre (default ZONE). */
  readonly zone?: { readonly x: number; readonly y: number };
  /** Weapon spread (default 0: shots go exactly where the shooter faces). */
  readonly spread?: number;
  readonly visionRange?: number;
}

/** A config with the zone pinned to one spot; by default no walls and no weapon spread. */
export function testConfig(options: ConfigOptions = {}): GameConfig {
  const zone = options.zone ?? ZONE;
  const spread = options.spread ?? 0;
  return {
    ...DEFAULT_CONFIG,
    arena: { ...DEFAULT_CONFIG.arena, walls: options.walls ?? [] },
    weapon: { ...DEFAULT_CONFIG.weapon, spreadStill: spread, spreadMoving: spread },
    zone: { ...DEFAULT_CONFIG.zone, spawnArea: { minX: zone.x, maxX: zone.x, minY: zone.y, maxY: zone.y } },
    visionRange: options.visionRange ?? DEFAULT_CONFIG.visionRange,
  };
}

/** The real arena's walls with the zone pinned at ARENA_ZONE and no weapon spread. */
export function arenaConfig(options: Omit<ConfigOptions, 'walls'> = {}): GameConfig {
  return testConfig({ zone: ARENA_ZONE, ...options, walls: DEFAULT_CONFIG.arena.walls });
}

/**
 * `config` with three agents per team: DEFAULT_CONFIG lists two spawn points per team, so a
 * third size needs its own, here one per team spaced 3 m apart at each base.
 */
export function threePerTeam(config: GameConfig = DEFAULT_CONFIG): GameConfig {
  const column = (x: number) => [7, 10, 13].map((y) => ({ x, y }));
  return {
    ...config,
    arena: { ...config.arena, spawns: [column(2), column(config.arena.width - 2)] },
    agent: { ...config.agent, perTeam: 3 },
  };
}

/** A world of `config` with every agent parked out of the way (facing its spawn direction). */
export function scenario(config: GameConfig = testConfig(), seed = 1): World {
  const world = createWorld(seed, config);
  world.agents.forEach((_, i) => place(world, i, PARKED[i]!.x, PARKED[i]!.y));
  return world;
}

/** Put agent `id` somewhere, optionally facing `angle` and with `health`. */
export function place(world: World, id: number, x: number, y: number, angle?: number, health?: number): void {
  const a = world.agents[id]!;
  a.x = x;
  a.y = y;
  if (angle !== undefined) a.angle = angle;
  if (health !== undefined) a.health = health;
  invalidateObservations(world);
}

/** Take agent `id` out of play for `ticks` ticks (as if eliminated, without the events). */
export function remove(world: World, id: number, ticks = 1_000_000): void {
  const a = world.agents[id]!;
  a.alive = false;
  a.health = 0;
  a.respawnTimer = ticks;
  invalidateObservations(world);
}

/** Forget cached observations (needed after editing a world by hand within one tick). */
export function invalidateObservations(world: World): void {
  world.observationCache.tick.fill(-1);
}

/** One action per agent: idle except the given partial actions. */
export function actionsFor(world: World, per: Readonly<Record<number, Partial<Action>>> = {}): Action[] {
  return world.agents.map((a) => ({ ...idleAction(), ...per[a.id] }));
}

/**
 * Step `ticks` times. `per` gives the actions (fixed, or per tick from a function called
 * before each step). Returns every event of those ticks.
 */
export function run(
  world: World,
  ticks: number,
  per: Readonly<Record<number, Partial<Action>>> | ((world: World) => Readonly<Record<number, Partial<Action>>>) = {},
  onTick?: (world: World, events: readonly SimEvent[]) => void,
): SimEvent[] {
  const all: SimEvent[] = [];
  for (let i = 0; i < ticks; i++) {
    const events = step(world, actionsFor(world, typeof per === 'function' ? per(world) : per));
    onTick?.(world, events);
    all.push(...events);
  }
  return all;
}

/** The events of one type, narrowed. */
export function ofType<T extends SimEventType>(events: readonly SimEvent[], type: T): Extract<SimEvent, { type: T }>[] {
  return events.filter((e): e is Extract<SimEvent, { type: T }> => e.type === type);
}

export const dist = (a: { x: number; y: number }, b: { x: number; y: number }) => Math.hypot(a.x - b.x, a.y - b.y);
