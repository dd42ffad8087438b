/**
 * Every game constant, in one typed place. Model cards and replays record the config they
 * were made with, so a change here is visible wherever it matters.
 *
 * Units: metres, seconds, radians. Timers are converted to whole ticks by `ticksOf`.
 */
import * as det from './detMath';

/** An axis-aligned wall: min and max corners in metres. */
export interface Wall {
  readonly minX: number;
  readonly minY: number;
  readonly maxX: number;
  readonly maxY: number;
}

export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface GameConfig {
  /** Physics ticks per second (the study's 50 Hz). */
  readonly tickHz: number;
  /** Skills act every this many ticks (4 ticks at 50 Hz = 12.5 Hz). */
  readonly skillEveryTicks: number;
  readonly arena: {
    readonly width: number;
    readonly height: number;
    readonly walls: readonly Wall[];
    /** Spawn points per team: blue (left) and red (right), one per agent. */
    readonly spawns: readonly [readonly Point[], readonly Point[]];
  };
  readonly agent: {
    readonly radius: number;
    /** Top speed in m/s; move and strafe together never exceed it. */
    readonly speed: number;
    /** Turn rate in rad/s at |turn| = 1. */
    readonly turnRate: number;
    readonly maxHealth: number;
    readonly perTeam: number;
  };
  readonly weapon: {
    readonly range: number;
    /** Seconds between shots. */
    readonly cooldown: number;
    readonly damage: number;
    /** Half-angle of the aim cone when standing still (radians). */
    readonly spreadStill: number;
    /** Extra half-angle at full speed; scales with the fraction of top speed. */
    readonly spreadMoving: number;
  };
  readonly dash: {
    readonly duration: number;
    readonly cooldown: number;
    /** Speed during a dash as a multiple of top speed. */
    readonly speedMultiplier: number;
  };
  readonly pickups: {
    readonly positions: readonly Point[];
    /** Distance between an agent's centre and the pickup's centre that collects it. */
    readonly collectRadius: number;
    /** Seconds until a collected pickup comes back. */
    readonly respawn: number;
  };
  readonly zone: {
    readonly radius: number;
    /** The zone's centre is drawn uniformly from this box, rejecting spots that touch walls. */
    readonly spawnArea: Wall;
    /** Clearance between the zone's edge and any wall. */
    readonly wallClearance: number;
  };
  /** Seconds an eliminated agent waits before it respawns at its base. */
  readonly respawnDelay: number;
  /** Seconds of sole occupation that win. */
  readonly winHoldSeconds: number;
  /** Fraction of zone progress a team keeps when one of its agents is eliminated. */
  readonly progressKeptOnElimination: number;
  /** Seconds after which the episode is a draw. */
  readonly episodeSeconds: number;
  /** How far an agent sees an enemy (line of sight is also required). */
  readonly visionRange: number;
  /** Length of the observation ray casts. */
  readonly rayLength: number;
}

/** Mirror a wall left-right so the arena stays fair to both teams. */
function mirrorX(w: Wall, width: number): Wall {
  return { minX: width - w.maxX, minY: w.minY, maxX: width - w.minX, maxY: w.maxY };
}

const WIDTH = 32;
const HEIGHT = 20;
const LEFT_WALLS: Wall[] = [
  { minX: 8.5, minY: 3, maxX: 9.5, maxY: 7 },
  { minX: 8.5, minY: 13, maxX: 9.5, maxY: 17 },
  { minX: 11, minY: 9.25, maxX: 12, maxY: 10.75 },
];

export const DEFAULT_CONFIG: GameConfig = {
  tickHz: 50,
  skillEveryTicks: 4,
  arena: {
    width: WIDTH,
    height: HEIGHT,
    walls: [
      ...LEFT_WALLS,
      ...LEFT_WALLS.map((w) => mirrorX(w, WIDTH)),
      { minX: 15, minY: 4.5, maxX: 17, maxY: 5.5 },
      { minX: 15, minY: 14.5, maxX: 17, maxY: 15.5 },
    ],
    spawns: [
      [
        { x: 2, y: 8.5 },
        { x: 2, y: 11.5 },
      ],
      [
        { x: 30, y: 8.5 },
        { x: 30, y: 11.5 },
      ],
    ],
  },
  agent: { radius: 0.5, speed: 5, turnRate: 4, maxHealth: 100, perTeam: 2 },
  weapon: { range: 12, cooldown: 0.25, damage: 10, spreadStill: 0.02, spreadMoving: 0.3 },
  dash: { duration: 0.2, cooldown: 2, speedMultiplier: 3 },
  pickups: {
    positions: [
      { x: 16, y: 2 },
      { x: 16, y: 18 },
    ],
    collectRadius: 1,
    respawn: 10,
  },
  zone: {
    radius: 2.5,
    // Kept to the middle third so no zone sits on a base's doorstep.
    spawnArea: { minX: 11, minY: 3, maxX: 21, maxY: 17 },
    wallClearance: 0.25,
  },
  respawnDelay: 2,
  winHoldSeconds: 8,
  progressKeptOnElimination: 0.5,
  episodeSeconds: 60,
  visionRange: 20,
  rayLength: 10,
};

/** The arena's diagonal: observed distances are divided by it. */
export function arenaDiagonal(config: GameConfig): number {
  return det.hypot(config.arena.width, config.arena.height);
}

/** Seconds to whole ticks (rounded), so every timer is an exact integer count. */
export function ticksOf(config: GameConfig, seconds: number): number {
  return Math.round(seconds * config.tickHz);
}

/** The timers of a config in ticks, computed once per world. */
export interface TickTimings {
  readonly dt: number;
  readonly fireCooldown: number;
  readonly dashDuration: number;
  readonly dashCooldown: number;
  readonly pickupRespawn: number;
  readonly respawnDelay: number;
  readonly winHold: number;
  readonly episode: number;
}

export function tickTimings(config: GameConfig): TickTimings {
  return {
    dt: 1 / config.tickHz,
    fireCooldown: ticksOf(config, config.weapon.cooldown),
    dashDuration: ticksOf(config, config.dash.duration),
    dashCooldown: ticksOf(config, config.dash.cooldown),
    pickupRespawn: ticksOf(config, config.pickups.respawn),
    respawnDelay: ticksOf(config, config.respawnDelay),
    winHold: ticksOf(config, config.winHoldSeconds),
    episode: ticksOf(config, config.episodeSeconds),
  };
}

/**
 * The largest game this build plays. Configs and replays from outside (files, the study's
 * pages) are checked against these before any simulation starts, so the work one can ask
 * for is bounded: ticks by tickHz x episodeSeconds, each tick's work by agents, walls and
 * pickups.
 */
export const GAME_LIMITS = {
  tickHz: 240,
  /** The study's longest episode: ten minutes. */
  episodeSeconds: 600,
  agentsPerTeam: 8,
  /** Metres, either side of the arena. */
  arenaSide: 1000,
  walls: 64,
  pickups: 16,
} as const;

/** The ticks a config's episode lasts at most: its draw tick. */
export function episodeTicks(config: GameConfig): number {
  return ticksOf(config, config.episodeSeconds);
}

/** What in a config exceeds the game's limits or cannot play, in words (empty when it fits). */
export function configLimitProblems(config: GameConfig): string[] {
  const problems: string[] = [];
  const over = (what: string, value: number, limit: number, unit = '') => {
    if (value > limit) problems.push(`${what} is ${value}${unit}; the game allows at most ${limit}${unit}`);
  };
  over('tickHz', config.tickHz, GAME_LIMITS.tickHz);
  over('episodeSeconds', config.episodeSeconds, GAME_LIMITS.episodeSeconds, ' s');
  over('agent.perTeam', config.agent.perTeam, GAME_LIMITS.agentsPerTeam);
  over('arena.width', config.arena.width, GAME_LIMITS.arenaSide, ' m');
  over('arena.height', config.arena.height, GAME_LIMITS.arenaSide, ' m');
  over('arena.walls', config.arena.walls.length, GAME_LIMITS.walls, ' walls');
  over('pickups.positions', config.pickups.positions.length, GAME_LIMITS.pickups, ' pickups');
  if (config.skillEveryTicks > config.tickHz) problems.push(`skillEveryTicks is ${config.skillEveryTicks}; skills act at least once a second (at most tickHz, ${config.tickHz})`);
  config.arena.spawns.forEach((points, team) => {
    if (points.length < config.agent.perTeam || points.length > GAME_LIMITS.agentsPerTeam) {
      problems.push(`arena.spawns[${team}] has ${points.length} points; it needs one per agent (${config.agent.perTeam}), at most ${GAME_LIMITS.agentsPerTeam}`);
    }
  });
  return problems;
}
