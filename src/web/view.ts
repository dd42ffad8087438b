/**
 * What the renderer reads each display frame: the world (never written), where each agent
 * stood one tick ago (for interpolation), short-lived effects, and labels. The session
 * fills it; the Phaser scene only draws it.
 */
import type { World } from '../sim';
import type { TeamPalette } from './palette';

export type Effect =
  | { readonly kind: 'tracer'; readonly born: number; readonly fromX: number; readonly fromY: number; readonly toX: number; readonly toY: number; readonly team: 0 | 1; readonly hit: boolean }
  | {
      readonly kind: 'hit';
      readonly born: number;
      readonly x: number;
      readonly y: number;
      readonly target: number;
      /** A person's shot landed: a hit marker for them. */
      readonly byPerson: boolean;
      /** A person was hit: the arena's edge flashes. */
      readonly onPerson: boolean;
    }
  | { readonly kind: 'kill'; readonly born: number; readonly x: number; readonly y: number; readonly team: 0 | 1 }
  | { readonly kind: 'respawn'; readonly born: number; readonly x: number; readonly y: number; readonly team: 0 | 1 }
  | { readonly kind: 'pickup'; readonly born: number; readonly x: number; readonly y: number }
  | { readonly kind: 'pickupReturn'; readonly born: number; readonly x: number; readonly y: number }
  | { readonly kind: 'dash'; readonly born: number; readonly agent: number }
  /** A team took the zone: a ring sweeps out from it in that team's colour. */
  | { readonly kind: 'capture'; readonly born: number; readonly team: 0 | 1 };

export type EffectKind = Effect['kind'];

/** How long each effect shows, in milliseconds of (unpaused) display time. */
export const EFFECT_MS: Readonly<Record<EffectKind, number>> = {
  tracer: 140,
  hit: 220,
  kill: 700,
  respawn: 600,
  pickup: 600,
  pickupReturn: 700,
  dash: 250,
  capture: 650,
};

export interface RenderView {
  readonly world: World | null;
  /** Fraction of the way from the previous tick to the current one, in [0, 1]. */
  readonly alpha: number;
  /** x, y, angle per agent one tick ago. */
  readonly prev: Float64Array;
  readonly effects: readonly Effect[];
  /** Display clock (ms) that effects' `born` refers to; it stands still while paused. */
  readonly clock: number;
  /** Text over each agent: its skill, or who plays it. */
  readonly labels: readonly (string | null)[];
  /** Agents people play, in player order. */
  readonly humanAgents: readonly number[];
  /** The sides' colours. */
  readonly palette: TeamPalette;
}

/** An agent's drawn pose: interpolated between the previous tick and now. */
export function interpolatedPose(view: RenderView, id: number): { x: number; y: number; angle: number } {
  const a = view.world!.agents[id]!;
  const t = view.alpha;
  const px = view.prev[id * 3]!;
  const py = view.prev[id * 3 + 1]!;
  const pa = view.prev[id * 3 + 2]!;
  let da = a.angle - pa;
  if (da > Math.PI) da -= 2 * Math.PI;
  else if (da < -Math.PI) da += 2 * Math.PI;
  return { x: px + (a.x - px) * t, y: py + (a.y - py) * t, angle: pa + da * t };
}
