import { type GameConfig, type TickTimings, tickTimings, DEFAULT_CONFIG } from './config';
import { distanceToWall } from './geometry';
import { OBS_SIZE } from './observeSpec';
import { nextState, valueOf } from './rng';

/** Team 0 is blue (starts left), team 1 is red (starts right). */
export type Team = 0 | 1;
export const TEAM_NAMES = ['blue', 'red'] as const;
export type TeamName = (typeof TEAM_NAMES)[number];

/** Running totals per agent, for metrics and the match summary. */
export interface AgentStats {
  kills: number;
  deaths: number;
  shots: number;
  hits: number;
  damageDealt: number;
  pickups: number;
}

/**
 * One agent. Fields are mutated in place by step() (no allocation per tick); everything
 * else reads them. Timers count down in whole ticks and are 0 when ready.
 */
export interface Agent {
  readonly id: number;
  readonly team: Team;
  /** Index within its team (0 or 1): picks its spawn point. */
  readonly slot: number;
  x: number;
  y: number;
  /** Facing in radians, kept in (-PI, PI]. */
  angle: number;
  /** Speed of the last tick as a fraction of top speed (drives weapon spread). */
  speedFraction: number;
  health: number;
  alive: boolean;
  respawnTimer: number;
  fireCooldown: number;
  dashTimer: number;
  dashCooldown: number;
  /** Dash direction, fixed when the dash starts. */
  dashDirX: number;
  dashDirY: number;
  inZone: boolean;
  readonly stats: AgentStats;
}

export interface Pickup {
  readonly x: number;
  readonly y: number;
  /** Ticks until it comes back; 0 means available. */
  respawnTimer: number;
}

/** Who is scoring this tick. */
export type ZoneStatus = 'empty' | 'blue' | 'red' | 'contested';

export type Outcome = { readonly kind: 'win'; readonly team: Team } | { readonly kind: 'draw' };

/** An outcome as summaries, replays and pages write it: the winner's side, 'draw', or null while the episode runs. */
export function outcomeSide(outcome: Outcome | null): TeamName | 'draw' | null {
  return !outcome ? null : outcome.kind === 'draw' ? 'draw' : TEAM_NAMES[outcome.team];
}

export interface World {
  readonly config: GameConfig;
  readonly timings: TickTimings;
  readonly seed: number;
  tick: number;
  /** The world's random stream (weapon spread); part of the state hash. */
  rngState: number;
  readonly zone: { readonly x: number; readonly y: number; readonly radius: number };
  readonly agents: readonly Agent[];
  readonly pickups: readonly Pickup[];
  /** Ticks of sole occupation per team (blue, red). */
  readonly progress: [number, number];
  zoneStatus: ZoneStatus;
  outcome: Outcome | null;
  /**
   * Observations already computed this tick, per agent (a derived cache, not state: the
   * hash ignores it). Strategists and skills often observe the same agent on one tick.
   */
  readonly observationCache: { readonly tick: Int32Array; readonly data: Float32Array };
}

/** Draw the next uniform number from the world's stream. */
export function worldRandom(world: World): number {
  world.rngState = nextState(world.rngState);
  return valueOf(world.rngState);
}

/** Where a team's agent stands when it (re)spawns, facing the other side. */
export function spawnPose(config: GameConfig, team: Team, slot: number) {
  const p = config.arena.spawns[team][slot];
  if (!p) throw new Error(`config has no spawn point for team ${TEAM_NAMES[team]} slot ${slot}`);
  return { x: p.x, y: p.y, angle: team === 0 ? 0 : Math.PI };
}

/** A uniform zone centre inside the spawn area whose circle touches no wall. */
function placeZone(config: GameConfig, random: () => number) {
  const { spawnArea, radius, wallClearance } = config.zone;
  for (let attempt = 0; attempt < 1000; attempt++) {
    const x = spawnArea.minX + random() * (spawnArea.maxX - spawnArea.minX);
    const y = spawnArea.minY + random() * (spawnArea.maxY - spawnArea.minY);
    if (config.arena.walls.every((w) => distanceToWall(x, y, w) >= radius + wallClearance)) {
      return { x, y, radius };
    }
  }
  throw new Error('config leaves no valid spot for the zone: shrink the zone or widen zone.spawnArea');
}

/** A new episode: agents at their bases, pickups available, zone at a seeded spot. */
export function createWorld(seed: number, config: GameConfig = DEFAULT_CONFIG): World {
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new Error(`seed must be an integer in [0, 4294967295], got ${seed}`);
  }
  let rngState = seed >>> 0;
  const zone = placeZone(config, () => {
    rngState = nextState(rngState);
    return valueOf(rngState);
  });
  const agents: Agent[] = [];
  for (const team of [0, 1] as const) {
    for (let slot = 0; slot < config.agent.perTeam; slot++) {
      agents.push({
        id: agents.length,
        team,
        slot,
        ...spawnPose(config, team, slot),
        speedFraction: 0,
        health: config.agent.maxHealth,
        alive: true,
        respawnTimer: 0,
        fireCooldown: 0,
        dashTimer: 0,
        dashCooldown: 0,
        dashDirX: 0,
        dashDirY: 0,
        inZone: false,
        stats: { kills: 0, deaths: 0, shots: 0, hits: 0, damageDealt: 0, pickups: 0 },
      });
    }
  }
  return {
    config,
    timings: tickTimings(config),
    seed,
    tick: 0,
    rngState,
    zone,
    agents,
    pickups: config.pickups.positions.map((p) => ({ x: p.x, y: p.y, respawnTimer: 0 })),
    progress: [0, 0],
    zoneStatus: 'empty',
    outcome: null,
    observationCache: { tick: new Int32Array(agents.length).fill(-1), data: new Float32Array(agents.length * OBS_SIZE) },
  };
}

/** The agents of one team, in slot order. */
export function teamAgents(world: World, team: Team): Agent[] {
  return world.agents.filter((a) => a.team === team);
}

/** Seconds left before the draw. */
export function secondsLeft(world: World): number {
  return (world.timings.episode - world.tick) / world.config.tickHz;
}
