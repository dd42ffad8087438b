/**
 * The heuristic team, the study's training opponent: every agent goes to the zone and
 * shoots any enemy it sees on the way. No coordination, no retreat.
 */
import { type Action, OBS, OBS_SIZE, clampUnit, resetIdle } from '../sim';
import type { Policy, SkillContext } from '../skills';
import { enemyVisible, slideTowards, walkTowards } from '../skills/steering';

/** How far off target (radians) the heuristic still pulls the trigger: it sprays. */
const FIRE_CONE = 0.15;

export function heuristicAct(obs: Float32Array, o: number, out: Action, context: SkillContext): void {
  resetIdle(out);
  if (enemyVisible(obs, o)) {
    const bearing = obs[o + OBS.enemyAngle]!;
    out.turn = clampUnit(bearing * 12);
    out.fire = Math.abs(bearing * Math.PI) < FIRE_CONE && obs[o + OBS.enemyDistance]! * context.diagonalM <= context.config.weapon.range ? 1 : 0;
    slideTowards(obs[o + OBS.zoneAngle]!, out, obs[o + OBS.inZone]! > 0.5 ? 0.3 : 1);
    return;
  }
  walkTowards(obs, o, obs[o + OBS.zoneAngle]!, obs[o + OBS.zoneDistance]!, out, context, obs[o + OBS.inZone]! > 0.5 ? 0.3 : 1);
}

export const HEURISTIC_POLICY: Policy = {
  name: 'heuristic',
  kind: 'scripted',
  act(obs, count, out, context) {
    for (let i = 0; i < count; i++) heuristicAct(obs, i * OBS_SIZE, out[i]!, context);
  },
};
