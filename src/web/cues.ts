/**
 * The moments worth a sound, picked out of a tick's events (and the countdown) as the
 * viewer would name them: your own shot, your hit landing, you being hit or eliminated,
 * any elimination, a pickup taken, a team taking the zone, the result. Shots of the AI
 * agents are left out on purpose: four agents firing four times a second is noise.
 */
import type { SimEvent, World } from '../sim';

export type CueKind =
  | 'shot'
  | 'hit'
  | 'hurt'
  | 'kill'
  | 'down'
  | 'pickup'
  | 'zone'
  | 'progress'
  | 'win'
  | 'lose'
  | 'draw'
  | 'count'
  | 'go';

export interface Cue {
  readonly kind: CueKind;
  /** The side the cue is about (zone, progress), when it has one. */
  readonly team?: 0 | 1;
}

/**
 * Cues for one tick's events. People always play blue, so with people on screen a blue
 * win is "win" and a red one "lose"; a match between AIs has only wins.
 */
export function eventCues(world: World, events: readonly SimEvent[], humanAgents: readonly number[], emit: (cue: Cue) => void): void {
  const person = (agent: number) => humanAgents.includes(agent);
  for (const e of events) {
    switch (e.type) {
      case 'shot':
        if (person(e.agent)) emit({ kind: 'shot' });
        break;
      case 'hit':
        if (person(e.target)) emit({ kind: 'hurt' });
        else if (person(e.agent)) emit({ kind: 'hit' });
        break;
      case 'kill':
        emit({ kind: person(e.target) ? 'down' : 'kill' });
        break;
      case 'pickup':
        emit({ kind: 'pickup' });
        break;
      case 'zoneStatus':
        if (e.status === 'blue' || e.status === 'red') emit({ kind: 'zone', team: e.status === 'blue' ? 0 : 1 });
        break;
      case 'progress':
        // The last seconds before a win are the tense ones: a tick for each.
        if (e.reason === 'capture' && e.seconds >= world.config.winHoldSeconds - 3 && e.seconds < world.config.winHoldSeconds) emit({ kind: 'progress', team: e.team });
        break;
      case 'win':
        emit({ kind: humanAgents.length > 0 && e.team === 1 ? 'lose' : 'win', team: e.team });
        break;
      case 'draw':
        emit({ kind: 'draw' });
        break;
      default:
        break;
    }
  }
}
