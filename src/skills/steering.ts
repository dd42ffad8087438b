/**
 * Steering helpers shared by the scripted skills and the heuristic team. They read the
 * observation vector (agent `o` starts at offset o) and the match's skill context, and
 * write an action.
 */
import { type Action, OBS, RAY_ANGLES_DEG, clampUnit, det } from '../sim';
import type { SkillContext } from './policy';

export const PI = Math.PI;
const RAY_RADIANS = RAY_ANGLES_DEG.map((d) => (d * PI) / 180);
/** Free distance (in ray units) wanted ahead before walking straight at a target. */
const CLEARANCE = 0.2;

/** Free distance in the direction `rel` (radians from the facing), from the nearest ray. */
function clearanceAt(obs: Float32Array, o: number, rel: number): number {
  let best = 0;
  let bestGap = Infinity;
  for (let i = 0; i < RAY_RADIANS.length; i++) {
    const gap = Math.abs(RAY_RADIANS[i]! - rel);
    if (gap < bestGap) {
      bestGap = gap;
      best = obs[o + OBS.firstRay + i]!;
    }
  }
  return best;
}

/**
 * A heading (radians from the facing) towards a target bearing that avoids walls the rays
 * see: straight at the target when clear, else the clear ray closest to it.
 */
function avoidWalls(obs: Float32Array, o: number, desired: number, targetDistance: number, context: SkillContext): number {
  if (Math.abs(desired) > PI / 2) return desired;
  const needed = Math.min(CLEARANCE, targetDistance * context.diagonalInRays);
  if (clearanceAt(obs, o, desired) >= needed) return desired;
  let heading = desired;
  let bestGap = Infinity;
  for (let i = 0; i < RAY_RADIANS.length; i++) {
    if (obs[o + OBS.firstRay + i]! < 1.5 * CLEARANCE) continue;
    const gap = Math.abs(RAY_RADIANS[i]! - desired);
    if (gap < bestGap) {
      bestGap = gap;
      heading = RAY_RADIANS[i]!;
    }
  }
  return heading;
}

/** Face and walk towards a bearing (in obs units, / PI), slowing while turning. */
export function walkTowards(obs: Float32Array, o: number, bearing: number, distance: number, out: Action, context: SkillContext, speed = 1): void {
  const heading = avoidWalls(obs, o, bearing * PI, distance, context);
  out.turn = clampUnit((heading / PI) * 4);
  const a = Math.abs(heading);
  out.move = a < PI / 4 ? speed : a < PI / 2 ? 0.4 * speed : 0;
  out.strafe = 0;
}

/** Move along a bearing without turning (strafe and move combined), for fighting on the move. */
export function slideTowards(bearing: number, out: Action, speed: number): void {
  out.move = det.cos(bearing * PI) * speed;
  out.strafe = det.sin(bearing * PI) * speed;
}

/** Turn to the visible enemy and fire when the shot would land. */
export function aimAndFire(obs: Float32Array, o: number, out: Action, context: SkillContext): void {
  const bearing = obs[o + OBS.enemyAngle]!;
  const distanceM = obs[o + OBS.enemyDistance]! * context.diagonalM;
  out.turn = clampUnit(bearing * 12);
  // Fire when the aim error is within the angle the target's body covers.
  const tolerance = Math.max(0.03, det.atan2(0.45, Math.max(distanceM, 0.5)));
  out.fire = Math.abs(bearing * PI) < tolerance && distanceM <= context.config.weapon.range ? 1 : 0;
}

export const enemyVisible = (obs: Float32Array, o: number) => obs[o + OBS.enemyVisible]! > 0.5;
