import type { Team, ZoneStatus } from './world';

/**
 * What step() reports, for metrics, replays' readers, LLM triggers and the renderer.
 * Every event carries the tick it happened on.
 */
export type SimEvent =
  | {
      readonly type: 'shot';
      readonly tick: number;
      readonly agent: number;
      readonly fromX: number;
      readonly fromY: number;
      readonly toX: number;
      readonly toY: number;
      /** The agent hit, or -1 for a miss. */
      readonly target: number;
    }
  | { readonly type: 'hit'; readonly tick: number; readonly agent: number; readonly target: number; readonly damage: number; readonly health: number }
  | { readonly type: 'kill'; readonly tick: number; readonly agent: number; readonly target: number }
  | { readonly type: 'respawn'; readonly tick: number; readonly agent: number }
  | { readonly type: 'dash'; readonly tick: number; readonly agent: number }
  | { readonly type: 'pickup'; readonly tick: number; readonly agent: number; readonly pickup: number }
  | { readonly type: 'pickupReturn'; readonly tick: number; readonly pickup: number }
  | { readonly type: 'zoneEnter'; readonly tick: number; readonly agent: number }
  | { readonly type: 'zoneLeave'; readonly tick: number; readonly agent: number }
  | { readonly type: 'zoneStatus'; readonly tick: number; readonly status: ZoneStatus }
  | {
      readonly type: 'progress';
      readonly tick: number;
      readonly team: Team;
      /** Seconds of progress after the change. */
      readonly seconds: number;
      /** 'capture' each whole second gained; 'elimination' when halved. */
      readonly reason: 'capture' | 'elimination';
    }
  | { readonly type: 'win'; readonly tick: number; readonly team: Team }
  | { readonly type: 'draw'; readonly tick: number };

export type SimEventType = SimEvent['type'];
