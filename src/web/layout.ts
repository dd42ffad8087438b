/**
 * Where the arena sits on the canvas: metres to pixels. The renderer draws with it and the
 * pointer reader inverts it, so aiming lands where the person points.
 */
import type { GameConfig } from '../sim';

/** Pixels per metre at the canvas's own resolution (the page scales the canvas to fit). */
export const PX_PER_M = 30;
/** Margin around the arena, in pixels. */
export const PAD = 14;

export interface CanvasSize {
  readonly width: number;
  readonly height: number;
}

export function canvasSize(config: GameConfig): CanvasSize {
  return { width: Math.round(config.arena.width * PX_PER_M + 2 * PAD), height: Math.round(config.arena.height * PX_PER_M + 2 * PAD) };
}

/** World metres to canvas pixels (the world's +y is drawn downwards). */
export function toPx(metres: number): number {
  return PAD + metres * PX_PER_M;
}

/**
 * A point on the displayed canvas (CSS pixels from its top-left, with its displayed size)
 * to world metres.
 */
export function displayToWorld(
  px: number,
  py: number,
  displayWidth: number,
  displayHeight: number,
  size: CanvasSize,
): { x: number; y: number } {
  const cx = (px / displayWidth) * size.width;
  const cy = (py / displayHeight) * size.height;
  return { x: (cx - PAD) / PX_PER_M, y: (cy - PAD) / PX_PER_M };
}
