/**
 * The action spec: what every controller (skill, policy, person) gives each agent per tick.
 * Continuous parts are clamped to [-1, 1]; binary parts are on when > 0.5.
 */

export const ACTION_SPEC_VERSION = 1;

export interface Action {
  /** Forward (+1) or backward (-1) along the facing, as a fraction of top speed. */
  move: number;
  /** Turn rate as a fraction of the top turn rate; +1 turns counter-clockwise (towards +y). */
  turn: number;
  /** Sideways, +1 to the agent's left (counter-clockwise of facing). */
  strafe: number;
  /** Start a dash (the study's "jump") if its cooldown allows; 1 or 0. */
  dash: number;
  /** Fire if the weapon is ready; 1 or 0. */
  fire: number;
}

/** The action vector's layout, documented per index for policies and replays. */
export const ACTION_SPEC = [
  { index: 0, name: 'move', kind: 'continuous', range: [-1, 1], meaning: 'forward/backward speed as a fraction of top speed' },
  { index: 1, name: 'turn', kind: 'continuous', range: [-1, 1], meaning: 'turn rate as a fraction of the top turn rate, + is counter-clockwise' },
  { index: 2, name: 'strafe', kind: 'continuous', range: [-1, 1], meaning: 'sideways speed, + is to the left of the facing' },
  { index: 3, name: 'dash', kind: 'binary', range: [0, 1], meaning: 'start a dash (short burst at 3x speed) when off cooldown' },
  { index: 4, name: 'fire', kind: 'binary', range: [0, 1], meaning: 'fire the hitscan weapon when off cooldown' },
] as const;

export const ACTION_SIZE = ACTION_SPEC.length;

export function idleAction(): Action {
  return { move: 0, turn: 0, strafe: 0, dash: 0, fire: 0 };
}

export function copyAction(from: Action, to: Action): void {
  to.move = from.move;
  to.turn = from.turn;
  to.strafe = from.strafe;
  to.dash = from.dash;
  to.fire = from.fire;
}

export function actionsEqual(a: Action, b: Action): boolean {
  return a.move === b.move && a.turn === b.turn && a.strafe === b.strafe && a.dash === b.dash && a.fire === b.fire;
}

export function clampUnit(v: number): number {
  // NaN from a broken policy becomes 0 rather than poisoning the world.
  return v > 1 ? 1 : v < -1 ? -1 : v === v ? v : 0;
}

export function resetIdle(a: Action): void {
  a.move = 0;
  a.turn = 0;
  a.strafe = 0;
  a.dash = 0;
  a.fire = 0;
}

/** The action as step() applies it: continuous parts clamped (NaN as 0), binary parts 0 or 1. */
export function sanitizeAction(from: Action, to: Action): Action {
  to.move = clampUnit(from.move);
  to.turn = clampUnit(from.turn);
  to.strafe = clampUnit(from.strafe);
  to.dash = from.dash > 0.5 ? 1 : 0;
  to.fire = from.fire > 0.5 ? 1 : 0;
  return to;
}
