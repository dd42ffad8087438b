/**
 * The discretised state that strategists read (behavior tree, LLM, the strategist panel):
 * the study's words for health, distances and time, derived from the same observations
 * the skills see, so every strategist decides on identical information.
 */
import { arenaDiagonal } from './config';
import { observe } from './observe';
import { OBS, OBS_SIZE } from './observeSpec';
import { type Agent, type Team, type World, type ZoneStatus, TEAM_NAMES, teamAgents } from './world';
import * as det from './detMath';

export type HealthLevel = 'HIGH' | 'MEDIUM' | 'LOW';
export type DistanceBand = 'NEAR' | 'MID' | 'FAR';
export type TimeBand = 'PLENTY' | 'LIMITED' | 'URGENT';

/** Thresholds from the study (health 66%/33%, distance 0.15/0.30 of the diagonal); time is our choice. */
export const SITUATION_THRESHOLDS = {
  healthHigh: 0.66,
  healthMedium: 0.33,
  distanceNear: 0.15,
  distanceMid: 0.3,
  /** Fractions of the episode left: more than half is PLENTY, more than a quarter LIMITED. */
  timePlenty: 0.5,
  timeLimited: 0.25,
} as const;

export interface AgentSituation {
  readonly agent: number;
  readonly alive: boolean;
  readonly health: HealthLevel;
  readonly zone: DistanceBand;
  readonly inZone: boolean;
  readonly enemyVisible: boolean;
  /** null when no enemy is visible. */
  readonly enemy: DistanceBand | null;
  readonly pickupPresent: boolean;
  /** null when no pickup is present. */
  readonly pickup: DistanceBand | null;
}

export interface TeamSituation {
  readonly team: Team;
  readonly teamName: (typeof TEAM_NAMES)[number];
  readonly agents: readonly AgentSituation[];
  /**
   * Distance between the two closest living agents of the team (in a team of two, its two
   * agents); null while fewer than two are alive.
   */
  readonly allyDistance: DistanceBand | null;
  readonly time: TimeBand;
  readonly secondsLeft: number;
  /** Zone progress as a percentage of the hold needed to win. */
  readonly progressPercent: number;
  readonly enemyProgressPercent: number;
  readonly zoneStatus: ZoneStatus;
}

export function healthLevel(fraction: number): HealthLevel {
  return fraction > SITUATION_THRESHOLDS.healthHigh ? 'HIGH' : fraction > SITUATION_THRESHOLDS.healthMedium ? 'MEDIUM' : 'LOW';
}

export function distanceBand(normalised: number): DistanceBand {
  return normalised < SITUATION_THRESHOLDS.distanceNear ? 'NEAR' : normalised < SITUATION_THRESHOLDS.distanceMid ? 'MID' : 'FAR';
}

export function timeBand(fractionLeft: number): TimeBand {
  return fractionLeft > SITUATION_THRESHOLDS.timePlenty ? 'PLENTY' : fractionLeft > SITUATION_THRESHOLDS.timeLimited ? 'LIMITED' : 'URGENT';
}

/** Discretise one agent's observation vector. */
export function agentSituation(agent: number, alive: boolean, obs: Float32Array, offset = 0): AgentSituation {
  const enemyVisible = obs[offset + OBS.enemyVisible]! > 0.5;
  const pickupPresent = obs[offset + OBS.pickupAvailable]! > 0.5;
  return {
    agent,
    alive,
    health: healthLevel(obs[offset + OBS.health]!),
    zone: distanceBand(obs[offset + OBS.zoneDistance]!),
    inZone: obs[offset + OBS.inZone]! > 0.5,
    enemyVisible,
    enemy: enemyVisible ? distanceBand(obs[offset + OBS.enemyDistance]!) : null,
    pickupPresent,
    pickup: pickupPresent ? distanceBand(obs[offset + OBS.pickupDistance]!) : null,
  };
}

const scratch = new Float32Array(OBS_SIZE);

/** The smallest distance between two living agents of `members`; Infinity with fewer than two alive. */
function closestLivingPair(members: readonly Agent[]): number {
  let closest = Infinity;
  for (let i = 0; i < members.length; i++) {
    const a = members[i]!;
    if (!a.alive) continue;
    for (let j = i + 1; j < members.length; j++) {
      const b = members[j]!;
      if (b.alive) closest = Math.min(closest, det.hypot(a.x - b.x, a.y - b.y));
    }
  }
  return closest;
}

/** What a strategist of `team` knows now. */
export function teamSituation(world: World, team: Team): TeamSituation {
  const members = teamAgents(world, team);
  const agents = members.map((a) => agentSituation(a.id, a.alive, observe(world, a.id, scratch)));
  const closest = closestLivingPair(members);
  const hold = world.timings.winHold;
  const left = Math.max(0, world.timings.episode - world.tick);
  return {
    team,
    teamName: TEAM_NAMES[team],
    agents,
    allyDistance: closest === Infinity ? null : distanceBand(closest / arenaDiagonal(world.config)),
    time: timeBand(left / world.timings.episode),
    secondsLeft: left / world.config.tickHz,
    progressPercent: Math.round((100 * world.progress[team]) / hold),
    enemyProgressPercent: Math.round((100 * world.progress[team === 0 ? 1 : 0]) / hold),
    zoneStatus: world.zoneStatus,
  };
}
