/**
 * The effects the renderer draws for the simulation's events (tracers, hits, kills,
 * captures, pickups, dashes), each born at a display-clock time and gone after its
 * EFFECT_MS; at most MAX_EFFECTS at once, the oldest dropped first.
 */
import type { SimEvent, World } from '../sim';
import { EFFECT_MS, type Effect } from './view';

const MAX_EFFECTS = 256;

export class EffectLog {
  private live: Effect[] = [];

  /** The effects still showing as of the last prune. */
  get effects(): readonly Effect[] {
    return this.live;
  }

  clear(): void {
    this.live = [];
  }

  /** The effect of one event, born at `born` (display ms); people's hits are marked so the page can stress them. */
  add(world: World, e: SimEvent, born: number, humanAgents: readonly number[]): void {
    const effect = effectOf(world, e, born, humanAgents);
    if (!effect) return;
    if (this.live.length >= MAX_EFFECTS) this.live.shift();
    this.live.push(effect);
  }

  /** Drop the effects whose time is over at `now`. */
  prune(now: number): void {
    let keep = 0;
    for (const e of this.live) if (now - e.born < EFFECT_MS[e.kind]) this.live[keep++] = e;
    this.live.length = keep;
  }
}

function effectOf(world: World, e: SimEvent, born: number, humanAgents: readonly number[]): Effect | null {
  switch (e.type) {
    case 'shot':
      return { kind: 'tracer', born, fromX: e.fromX, fromY: e.fromY, toX: e.toX, toY: e.toY, team: world.agents[e.agent]!.team, hit: e.target >= 0 };
    case 'hit': {
      const t = world.agents[e.target]!;
      return { kind: 'hit', born, x: t.x, y: t.y, target: e.target, byPerson: humanAgents.includes(e.agent), onPerson: humanAgents.includes(e.target) };
    }
    case 'zoneStatus':
      return e.status === 'blue' || e.status === 'red' ? { kind: 'capture', born, team: e.status === 'blue' ? 0 : 1 } : null;
    case 'kill': {
      const t = world.agents[e.target]!;
      return { kind: 'kill', born, x: t.x, y: t.y, team: t.team };
    }
    case 'respawn': {
      const a = world.agents[e.agent]!;
      return { kind: 'respawn', born, x: a.x, y: a.y, team: a.team };
    }
    case 'pickup': {
      const p = world.pickups[e.pickup]!;
      return { kind: 'pickup', born, x: p.x, y: p.y };
    }
    case 'pickupReturn': {
      const p = world.pickups[e.pickup]!;
      return { kind: 'pickupReturn', born, x: p.x, y: p.y };
    }
    case 'dash':
      return { kind: 'dash', born, agent: e.agent };
    default:
      return null;
  }
}
