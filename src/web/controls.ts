/**
 * What a person's keys, pointer and gamepad mean, as pure functions (the DOM reader in
 * input.ts feeds them). Movement is relative to the screen (W is up whatever the agent
 * faces); aiming turns the agent towards a point as fast as its turn rate allows.
 */
import { type Action, type World, det, wrapAngle } from '../sim';

export interface PlayerBindings {
  readonly up: readonly string[];
  readonly down: readonly string[];
  readonly left: readonly string[];
  readonly right: readonly string[];
  readonly turnLeft: readonly string[];
  readonly turnRight: readonly string[];
  readonly fire: readonly string[];
  readonly dash: readonly string[];
}

/** KeyboardEvent.code values (physical keys, so other layouts work too). */
export const PLAYER_ONE: PlayerBindings = {
  up: ['KeyW'],
  down: ['KeyS'],
  left: ['KeyA'],
  right: ['KeyD'],
  turnLeft: ['ArrowLeft'],
  turnRight: ['ArrowRight'],
  fire: ['Space'],
  dash: ['ShiftLeft', 'ShiftRight'],
};

/** With two people at one keyboard, the first keeps the left Shift only. */
export const PLAYER_ONE_OF_TWO: PlayerBindings = { ...PLAYER_ONE, dash: ['ShiftLeft'] };

export const PLAYER_TWO: PlayerBindings = {
  up: ['KeyI'],
  down: ['KeyK'],
  left: ['KeyJ'],
  right: ['KeyL'],
  turnLeft: ['KeyU'],
  turnRight: ['KeyO'],
  fire: ['Enter', 'NumpadEnter'],
  dash: ['ShiftRight'],
};

/** Every key the game uses, so the page can keep them from scrolling it. */
export const GAME_KEYS: ReadonlySet<string> = new Set(
  [PLAYER_ONE, PLAYER_TWO].flatMap((b) => [...b.up, ...b.down, ...b.left, ...b.right, ...b.turnLeft, ...b.turnRight, ...b.fire, ...b.dash]),
);

/**
 * Keys that scroll the page by default. While a person plays none of them may move the
 * page under the arena, game key or not (the arrows up and down are not bound, yet a
 * person reaching for them must not lose sight of the arena).
 */
export const SCROLL_KEYS: ReadonlySet<string> = new Set(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Space', 'PageUp', 'PageDown', 'Home', 'End']);

/** A person's intent before it becomes an action. */
export interface Intent {
  /** Desired direction of travel on screen (world axes; +y is down), length <= 1. */
  dx: number;
  dy: number;
  /** Turn from keys in [-1, 1] (+ is clockwise on screen), or 0. */
  turn: number;
  /** A world point to face, or null. Used when `turn` is 0. */
  aimX: number | null;
  aimY: number | null;
  /** A world direction to face (a gamepad's right stick), or null. Wins over aimX/aimY. */
  aimAngle: number | null;
  fire: boolean;
  dash: boolean;
}

export function emptyIntent(): Intent {
  return { dx: 0, dy: 0, turn: 0, aimX: null, aimY: null, aimAngle: null, fire: false, dash: false };
}

export function bindingIntent(pressed: ReadonlySet<string>, b: PlayerBindings, out: Intent): Intent {
  const any = (codes: readonly string[]) => codes.some((c) => pressed.has(c));
  out.dx += (any(b.right) ? 1 : 0) - (any(b.left) ? 1 : 0);
  out.dy += (any(b.down) ? 1 : 0) - (any(b.up) ? 1 : 0);
  out.turn += (any(b.turnRight) ? 1 : 0) - (any(b.turnLeft) ? 1 : 0);
  out.fire ||= any(b.fire);
  out.dash ||= any(b.dash);
  return out;
}

/** Turn command in [-1, 1] that faces `target` as fast as allowed, without overshooting. */
export function turnTowards(angle: number, target: number, turnRate: number, dt: number): number {
  const diff = wrapAngle(target - angle);
  const perTick = turnRate * dt;
  return Math.max(-1, Math.min(1, diff / perTick));
}

/**
 * An intent to the action of agent `agentId`: turning first (as step() does), then the
 * screen direction expressed in the agent's move (forward) and strafe (left) axes.
 */
export function intentToAction(world: World, agentId: number, intent: Intent, out: Action): Action {
  const agent = world.agents[agentId]!;
  const { turnRate } = world.config.agent;
  const dt = world.timings.dt;
  let turn = Math.max(-1, Math.min(1, intent.turn));
  if (turn === 0 && intent.aimAngle !== null) turn = turnTowards(agent.angle, intent.aimAngle, turnRate, dt);
  else if (turn === 0 && intent.aimX !== null && intent.aimY !== null) {
    const dx = intent.aimX - agent.x;
    const dy = intent.aimY - agent.y;
    if (dx * dx + dy * dy > 0.04) turn = turnTowards(agent.angle, det.atan2(dy, dx), turnRate, dt);
  }
  const angle = agent.angle + turn * turnRate * dt;
  let { dx, dy } = intent;
  const length = det.hypot(dx, dy);
  if (length > 1) {
    dx /= length;
    dy /= length;
  }
  const cos = det.cos(angle);
  const sin = det.sin(angle);
  out.move = dx * cos + dy * sin;
  out.strafe = -dx * sin + dy * cos;
  out.turn = turn;
  out.fire = intent.fire ? 1 : 0;
  out.dash = intent.dash ? 1 : 0;
  return out;
}

/** Standard-mapping gamepad: left stick moves, right stick aims, RT or A fires, LB or B dashes. */
export interface PadState {
  readonly axes: readonly number[];
  readonly pressed: readonly boolean[];
}

const DEADZONE = 0.2;

export function padIntent(pad: PadState, out: Intent): Intent {
  const lx = pad.axes[0] ?? 0;
  const ly = pad.axes[1] ?? 0;
  if (det.hypot(lx, ly) > DEADZONE) {
    out.dx += lx;
    out.dy += ly;
  }
  const rx = pad.axes[2] ?? 0;
  const ry = pad.axes[3] ?? 0;
  if (det.hypot(rx, ry) > 0.35) out.aimAngle = det.atan2(ry, rx);
  out.fire ||= Boolean(pad.pressed[7] || pad.pressed[0] || pad.pressed[5]);
  out.dash ||= Boolean(pad.pressed[4] || pad.pressed[1]);
  return out;
}
