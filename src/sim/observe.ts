/**
 * observe(): a world seen by one agent, as the observation spec (observeSpec.ts) lays out.
 */
import { arenaDiagonal } from './config';
import { castRay, lineOfSight, wrapAngle } from './geometry';
import { OBS, OBS_SIZE, RAY_ANGLES_DEG } from './observeSpec';
import type { Agent, World } from './world';
import * as det from './detMath';

const RAY_COS = RAY_ANGLES_DEG.map((deg) => det.cos((deg * Math.PI) / 180));
const RAY_SIN = RAY_ANGLES_DEG.map((deg) => det.sin((deg * Math.PI) / 180));

function bearing(agent: Agent, x: number, y: number): number {
  return wrapAngle(det.atan2(y - agent.y, x - agent.x) - agent.angle) / Math.PI;
}

/** True when `from` can see `to`: both alive, within vision range, no wall between. */
export function canSee(world: World, from: Agent, to: Agent): boolean {
  if (!from.alive || !to.alive) return false;
  const d = det.hypot(to.x - from.x, to.y - from.y);
  return d <= world.config.visionRange && lineOfSight(world.config.arena.walls, from.x, from.y, to.x, to.y);
}

/** Write agent `agentId`'s observation into out[offset .. offset + OBS_SIZE). */
export function observe(world: World, agentId: number, out: Float32Array, offset = 0): Float32Array {
  const cache = world.observationCache;
  const from = agentId * OBS_SIZE;
  if (cache.tick[agentId] !== world.tick) {
    computeObservation(world, agentId, cache.data, from);
    cache.tick[agentId] = world.tick;
  }
  out.set(cache.data.subarray(from, from + OBS_SIZE), offset);
  return out;
}

function computeObservation(world: World, agentId: number, out: Float32Array, offset: number): void {
  const { config, zone, agents } = world;
  const { width, height, walls } = config.arena;
  const diagonal = arenaDiagonal(config);
  const me = agents[agentId]!;

  const zoneDist = det.hypot(zone.x - me.x, zone.y - me.y);
  out[offset + 0] = Math.min(1, zoneDist / diagonal);
  out[offset + 1] = bearing(me, zone.x, zone.y);
  out[offset + 2] = me.inZone ? 1 : 0;

  // The ally is the nearest living teammate (the lowest slot on a tie): with one teammate,
  // that teammate while it is alive.
  let ally: Agent | undefined;
  let allyDist = Infinity;
  let enemy: Agent | undefined;
  let enemyDist = Infinity;
  for (const other of agents) {
    if (other === me) continue;
    if (other.team === me.team) {
      if (!other.alive) continue;
      const d = det.hypot(other.x - me.x, other.y - me.y);
      if (d < allyDist) {
        allyDist = d;
        ally = other;
      }
    } else if (canSee(world, me, other)) {
      const d = det.hypot(other.x - me.x, other.y - me.y);
      if (d < enemyDist) {
        enemyDist = d;
        enemy = other;
      }
    }
  }
  out[offset + 3] = ally ? Math.min(1, allyDist / diagonal) : -1;
  out[offset + 4] = ally ? bearing(me, ally.x, ally.y) : 0;

  let pickupIndex = -1;
  let pickupDist = Infinity;
  for (let i = 0; i < world.pickups.length; i++) {
    const p = world.pickups[i]!;
    if (p.respawnTimer > 0) continue;
    const d = det.hypot(p.x - me.x, p.y - me.y);
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

  // Ray directions by angle addition: two trig calls instead of fourteen.
  const cos = det.cos(me.angle);
  const sin = det.sin(me.angle);
  for (let i = 0; i < RAY_COS.length; i++) {
    const dx = cos * RAY_COS[i]! - sin * RAY_SIN[i]!;
    const dy = sin * RAY_COS[i]! + cos * RAY_SIN[i]!;
    const t = castRay(walls, width, height, me.x, me.y, dx, dy, config.rayLength);
    out[offset + OBS.firstRay + i] = t / config.rayLength;
  }
}
