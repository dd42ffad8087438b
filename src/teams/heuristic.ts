/**
 * The heuristic team, the study's training opponent: every agent goes to the zone and
 * shoots any enemy it sees on the way. No coordination, no retreat.
 */
import { type Action, OBS, OBS_SIZE, resetIdle } from '../sim';
import type { Policy } from '../skills';
import { aimAndFire, enemyVisible, slideTowards, walkTowards } from '../skills/steering';

export function heuristicAct(obs: Float32Array, o: number, out: Action): void {
  resetIdle(out);
  if (enemyVisible(obs, o)) {
    aimAndFire(obs, o, out);
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
