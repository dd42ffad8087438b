/**
 * Scripted reference skills. Each reads the 20-number observation and writes an action,
 * exactly like a trained policy, so either can stand in for the other; the skill context
 * only turns observed distances into metres of the match's arena and weapon. They are
 * stateless: the same observation in the same game always gives the same action.
 */
import { type Action, OBS, OBS_SIZE, resetIdle, wrapAngle } from '../sim';
import { SKILL_IDS, type SkillId } from './catalogue';
import type { Policy, SkillContext, SkillSet } from './policy';
import { PI, aimAndFire, enemyVisible, slideTowards, walkTowards } from './steering';

/** Navigate: reach the zone; never fires. */
export function navigate(obs: Float32Array, o: number, out: Action, context: SkillContext): void {
  resetIdle(out);
  if (obs[o + OBS.inZone]! > 0.5 && obs[o + OBS.zoneDistance]! * context.diagonalM < 1) return;
  walkTowards(obs, o, obs[o + OBS.zoneAngle]!, obs[o + OBS.zoneDistance]!, out, context);
}

/** Combat: fight the nearest visible enemy, standing still to shoot (a still weapon is accurate). */
export function combat(obs: Float32Array, o: number, out: Action, context: SkillContext): void {
  resetIdle(out);
  if (!enemyVisible(obs, o)) {
    walkTowards(obs, o, obs[o + OBS.zoneAngle]!, obs[o + OBS.zoneDistance]!, out, context);
    return;
  }
  aimAndFire(obs, o, out, context);
  const distanceM = obs[o + OBS.enemyDistance]! * context.diagonalM;
  if (distanceM > context.config.weapon.range - 1) out.move = 0.6; // close in to weapon range
  else if (distanceM < 2.5) out.move = -0.5; // keep out of a rush
}

/** Secure: get inside the zone and hold its middle, shooting whoever comes. */
export function secure(obs: Float32Array, o: number, out: Action, context: SkillContext): void {
  resetIdle(out);
  const zoneBearing = obs[o + OBS.zoneAngle]!;
  const zoneDistanceM = obs[o + OBS.zoneDistance]! * context.diagonalM;
  if (enemyVisible(obs, o)) {
    aimAndFire(obs, o, out, context);
    // Inside the zone, stand still while shooting: a still weapon is the accurate one.
    // Outside, push in, but stop to trade shots with an enemy close enough to punish the walk.
    const enemyM = obs[o + OBS.enemyDistance]! * context.diagonalM;
    if (obs[o + OBS.inZone]! < 0.5 && (enemyM > 8 || out.fire === 0)) slideTowards(zoneBearing, out, 1);
    return;
  }
  if (zoneDistanceM > 1) {
    walkTowards(obs, o, zoneBearing, obs[o + OBS.zoneDistance]!, out, context, obs[o + OBS.inZone]! > 0.5 ? 0.4 : 1);
    return;
  }
  out.turn = 0.5; // scan for enemies from the middle
}

/** Retreat: run for the nearest health pickup; with none, back away from danger towards the ally. */
export function retreat(obs: Float32Array, o: number, out: Action, context: SkillContext): void {
  resetIdle(out);
  if (obs[o + OBS.pickupAvailable]! > 0.5) {
    walkTowards(obs, o, obs[o + OBS.pickupAngle]!, obs[o + OBS.pickupDistance]!, out, context);
    if (enemyVisible(obs, o) && obs[o + OBS.enemyDistance]! * context.diagonalM < 6) out.dash = 1;
    return;
  }
  if (enemyVisible(obs, o)) {
    const away = wrapAngle(obs[o + OBS.enemyAngle]! * PI + PI) / PI;
    walkTowards(obs, o, away, 1, out, context);
    return;
  }
  if (obs[o + OBS.allyDistance]! >= 0) {
    walkTowards(obs, o, obs[o + OBS.allyAngle]!, obs[o + OBS.allyDistance]!, out, context, 0.6);
  }
}

const SCRIPTS: Record<SkillId, (obs: Float32Array, o: number, out: Action, context: SkillContext) => void> = {
  navigate,
  combat,
  secure,
  retreat,
};

function scriptedPolicy(skill: SkillId): Policy {
  const script = SCRIPTS[skill];
  return {
    name: skill,
    kind: 'scripted',
    act(obs, count, out, context) {
      for (let i = 0; i < count; i++) script(obs, i * OBS_SIZE, out[i]!, context);
    },
  };
}

/** The four scripted reference skills. */
export const SCRIPTED_SKILLS: SkillSet = Object.fromEntries(
  SKILL_IDS.map((id) => [id, scriptedPolicy(id)]),
) as unknown as SkillSet;
