/**
 * The observation every skill policy reads: the study's 20 normalised, egocentric numbers.
 * Angles are bearings relative to the agent's facing divided by PI (so in [-1, 1], + is to
 * the left); distances are divided by the arena's diagonal (so in [0, 1]) and are -1 when
 * the thing is absent or not visible.
 *
 * Bump OBS_SPEC_VERSION on any change: model cards record it and loading checks it.
 */
import { castRay, lineOfSight, wrapAngle } from './geometry';
import type { Agent, World } from './world';

export const OBS_SPEC_VERSION = 1;

/** Ray directions relative to the facing, in degrees (+ is to the left). */
export const RAY_ANGLES_DEG = [-90, -60, -30, 0, 30, 60, 90] as const;

export interface ObsEntry {
  readonly index: number;
  readonly name: string;
  readonly range: readonly [number, number];
  readonly meaning: string;
}

const rays: ObsEntry[] = RAY_ANGLES_DEG.map((deg, i) => ({
  index: 13 + i,
  name: `ray${deg >= 0 ? '+' : ''}${deg}`,
  range: [0, 1],
  meaning: `free distance to the nearest wall or arena edge at ${deg} degrees from the facing, / rayLength`,
}));

export const OBS_SPEC: readonly ObsEntry[] = [
  { index: 0, name: 'zoneDistance', range: [0, 1], meaning: 'distance to the zone centre / arena diagonal' },
  { index: 1, name: 'zoneAngle', range: [-1, 1], meaning: 'bearing of the zone centre / PI' },
  { index: 2, name: 'inZone', range: [0, 1], meaning: '1 when this agent is inside the zone' },
  { index: 3, name: 'allyDistance', range: [-1, 1], meaning: 'distance to the teammate / diagonal; -1 while it is eliminated' },
  { index: 4, name: 'allyAngle', range: [-1, 1], meaning: 'bearing of the teammate / PI; 0 while it is eliminated' },
  { index: 5, name: 'pickupAvailable', range: [0, 1], meaning: '1 when at least one health pickup is present' },
  { index: 6, name: 'pickupAngle', range: [-1, 1], meaning: 'bearing of the nearest present pickup / PI; 0 when none' },
  { index: 7, name: 'pickupDistance', range: [-1, 1], meaning: 'distance to the nearest present pickup / diagonal; -1 when none' },
  { index: 8, name: 'enemyVisible', range: [0, 1], meaning: '1 when an enemy is in line of sight within vision range' },
  { index: 9, name: 'enemyAngle', range: [-1, 1], meaning: 'bearing of the nearest visible enemy / PI; 0 when none' },
  { index: 10, name: 'enemyDistance', range: [-1, 1], meaning: 'distance to the nearest visible enemy / diagonal; -1 when none' },
  { index: 11, name: 'timeRemaining', range: [0, 1], meaning: 'fraction of the episode left before the draw' },
  { index: 12, name: 'health', range: [0, 1], meaning: 'health / max health' },
  ...rays,
];

export const OBS_SIZE = OBS_SPEC.length;

/** Named indices, so skills read `obs[OBS.enemyAngle]` rather than magic numbers. */
export const OBS = {
  zoneDistance: 0,
  zoneAngle: 1,
  inZone: 2,
  allyDistance: 3,
  allyAngle: 4,
  pickupAvailable: 5,
  pickupAngle: 6,
  pickupDistance: 7,
  enemyVisible: 8,
  enemyAngle: 9,
  enemyDistance: 10,
  timeRemaining: 11,
  health: 12,
  firstRay: 13,
  rayCount: RAY_ANGLES_DEG.length,
} as const;

const RAY_OFFSETS = RAY_ANGLES_DEG.map((deg) => (deg * Math.PI) / 180);

function bearing(agent: Agent, x: number, y: number): number {
  return wrapAngle(Math.atan2(y - agent.y, x - agent.x) - agent.angle) / Math.PI;
}

/** True when `from` can see `to`: both alive, within vision range, no wall between. */
export function canSee(world: World, from: Agent, to: Agent): boolean {
  if (!from.alive || !to.alive) return false;
  const d = Math.hypot(to.x - from.x, to.y - from.y);
  return d <= world.config.visionRange && lineOfSight(world.config.arena.walls, from.x, from.y, to.x, to.y);
}

/** Write agent `agentId`'s observation into out[offset .. offset + OBS_SIZE). */
export function observe(world: World, agentId: number, out: Float32Array, offset = 0): Float32Array {
  const { config, zone, agents } = world;
  const { width, height, walls } = config.arena;
  const diagonal = Math.hypot(width, height);
  const me = agents[agentId]!;

  const zoneDist = Math.hypot(zone.x - me.x, zone.y - me.y);
  out[offset + 0] = Math.min(1, zoneDist / diagonal);
  out[offset + 1] = bearing(me, zone.x, zone.y);
  out[offset + 2] = me.inZone ? 1 : 0;

  let ally: Agent | undefined;
  let enemy: Agent | undefined;
  let enemyDist = Infinity;
  for (const other of agents) {
    if (other === me) continue;
    if (other.team === me.team) {
      ally = other;
    } else if (canSee(world, me, other)) {
      const d = Math.hypot(other.x - me.x, other.y - me.y);
      if (d < enemyDist) {
        enemyDist = d;
        enemy = other;
      }
    }
  }
  const allyAlive = ally !== undefined && ally.alive;
  out[offset + 3] = allyAlive ? Math.min(1, Math.hypot(ally!.x - me.x, ally!.y - me.y) / diagonal) : -1;
  out[offset + 4] = allyAlive ? bearing(me, ally!.x, ally!.y) : 0;

  let pickupIndex = -1;
  let pickupDist = Infinity;
  for (let i = 0; i < world.pickups.length; i++) {
    const p = world.pickups[i]!;
    if (p.respawnTimer > 0) continue;
    const d = Math.hypot(p.x - me.x, p.y - me.y);
    if (d < pickupDist) {
      pickupDist = d;
      pickupIndex = i;
    }
  }
  const pickup = pickupIndex >= 0 ? world.pickups[pickupIndex]! : undefined;
  out[offset + 5] = pickup ? 1 : 0;
  out[offset + 6] = pickup ? bearing(me, pickup.x, pickup.y) : 0;
  out[offset + 7] = pickup ? Math.min(1, pickupDist / diagonal) : -1;

  out[offset + 8] = enemy ? 1 : 0;
  out[offset + 9] = enemy ? bearing(me, enemy.x, enemy.y) : 0;
  out[offset + 10] = enemy ? Math.min(1, enemyDist / diagonal) : -1;

  out[offset + 11] = Math.max(0, (world.timings.episode - world.tick) / world.timings.episode);
  out[offset + 12] = me.health / config.agent.maxHealth;

  for (let i = 0; i < RAY_OFFSETS.length; i++) {
    const a = me.angle + RAY_OFFSETS[i]!;
    const t = castRay(walls, width, height, me.x, me.y, Math.cos(a), Math.sin(a), config.rayLength);
    out[offset + OBS.firstRay + i] = t / config.rayLength;
  }
  return out;
}
