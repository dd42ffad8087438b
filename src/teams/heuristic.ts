/**
 * The heuristic team, the study's training opponent: every agent goes to the zone and
 * shoots any enemy it sees on the way. No coordination, no retreat.
 */
import { type Action, DEFAULT_CONFIG, OBS, OBS_SIZE, clampUnit, resetIdle } from '../sim';
import type { Policy } from '../skills';
import { DIAGONAL_M, enemyVisible, slideTowards, walkTowards } from '../skills/steering';

/** How far off target (radians) the heuristic still pulls the trigger: it sprays. */
const FIRE_CONE = 0.15;

export function heuristicAct(obs: Float32Array, o: number, out: Action): void {
  resetIdle(out);
  if (enemyVisible(obs, o)) {
    const bearing = obs[o + OBS.enemyAngle]!;
    out.turn = clampUnit(bearing * 12);
    out.fire = Math.abs(bearing * Math.PI) < FIRE_CONE && obs[o + OBS.enemyDistance]! * DIAGONAL_M <= DEFAULT_CONFIG.weapon.range ? 1 : 0;
    slideTowards(obs[o + OBS.zoneAngle]!, out, obs[o + OBS.inZone]! > 0.5 ? 0.3 : 1);
    return;
  }
  walkTowards(obs, o, obs[o + OBS.zoneAngle]!, obs[o + OBS.zoneDistance]!, out, obs[o + OBS.inZone]! > 0.5 ? 0.3 : 1);
}

export const HEURISTIC_POLICY: Policy = {
  name: 'heuristic',
  kind: 'scripted',
  act(obs, count, out) {
    for (let i = 0; i < count; i++) heuristicAct(obs, i * OBS_SIZE, out[i]!);
  },
};
