/** Game events and decisions in words, for the event feed and the strategist panel. */
import { type SimEvent, TEAM_NAMES, type World, type ZoneStatus } from '../sim';
import type { DecisionSource } from '../teams';
import type { FeedEntry, Tone } from './stores';

export function teamLabel(team: 0 | 1): string {
  return team === 0 ? 'Blue' : 'Red';
}

/** "Blue 1", "Red 2": team and slot, 1-based. */
export function agentName(world: World, id: number): string {
  const a = world.agents[id];
  return a ? `${teamLabel(a.team)} ${a.slot + 1}` : `agent ${id}`;
}

/** m:ss.s of play at a tick. */
export function clock(tick: number, tickHz: number): string {
  const seconds = tick / tickHz;
  const m = Math.floor(seconds / 60);
  const s = seconds - m * 60;
  return `${m}:${s.toFixed(1).padStart(4, '0')}`;
}

/**
 * A result as the viewer would say it. People always play blue, so with a person on
 * screen a blue win is "You won" and a red one "You lost"; a spectator hears team names.
 */
export function resultText(outcome: 'blue' | 'red' | 'draw', personPlays: boolean, names: readonly [string, string] = ['Blue', 'Red']): string {
  if (outcome === 'draw') return 'Draw';
  if (personPlays) return outcome === 'blue' ? 'You won' : 'You lost';
  return `${outcome === 'blue' ? names[0] : names[1]} wins`;
}

/** The zone in words: who holds it, by the names the screen uses for the sides. */
export function zoneText(status: ZoneStatus, names: readonly [string, string] = ['Blue', 'Red']): string {
  if (status === 'empty') return 'Zone empty';
  if (status === 'contested') return 'Zone contested';
  return `${status === 'blue' ? names[0] : names[1]} holds the zone`;
}

export const SOURCE_LABELS: Readonly<Record<DecisionSource, string>> = {
  'behavior-tree': 'behavior tree',
  llm: 'language model',
  planner: 'planner',
  random: 'random choice',
  human: 'a person',
  rule: 'rule',
};

/** One feed line for an event, or null for events too frequent to list (shots, hits, steps). */
export function describeEvent(world: World, e: SimEvent): Omit<FeedEntry, 'id'> | null {
  const line = (text: string, tone: Tone) => ({ tick: e.tick, text, tone });
  const toneOf = (agent: number): Tone => (world.agents[agent]?.team === 1 ? 'red' : 'blue');
  switch (e.type) {
    case 'kill':
      return line(`${agentName(world, e.agent)} eliminated ${agentName(world, e.target)}`, toneOf(e.agent));
    case 'respawn':
      return line(`${agentName(world, e.agent)} respawned at base`, toneOf(e.agent));
    case 'pickup':
      return line(`${agentName(world, e.agent)} took the ${pickupName(world, e.pickup)} health pickup`, toneOf(e.agent));
    case 'pickupReturn':
      return line(`The ${pickupName(world, e.pickup)} health pickup is back`, 'neutral');
    case 'zoneStatus':
      if (e.status === 'empty') return line('The zone is empty', 'neutral');
      if (e.status === 'contested') return line('The zone is contested', 'neutral');
      return line(`${e.status === 'blue' ? 'Blue' : 'Red'} holds the zone`, e.status);
    case 'progress':
      return e.reason === 'elimination'
        ? line(`${teamLabel(e.team)} progress halved to ${e.seconds.toFixed(1)} s`, TEAM_NAMES[e.team])
        : null;
    case 'win':
      return line(`${teamLabel(e.team)} wins`, 'win');
    case 'draw':
      return line('Time is up: a draw', 'win');
    default:
      return null;
  }
}

function pickupName(world: World, index: number): string {
  const p = world.pickups[index];
  if (!p) return `#${index + 1}`;
  return p.y < world.config.arena.height / 2 ? 'north' : 'south';
}
