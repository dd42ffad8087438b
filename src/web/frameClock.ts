/**
 * The page's match clock: how many ticks each display frame plays, from the time the
 * platform's clock says has passed since the last frame and the chosen speed; the countdown
 * before a match with people; where the drawing lies between the last two ticks (alpha and
 * the agents' poses a tick ago); and counts that say whether the pace is right.
 *
 * Frames are timed by the platform's clock, not the renderer's frame delta: Phaser smooths
 * its delta and caps it at 16.7 ms while the page is not focused, so at 15-30 fps (the WebGL
 * renderer in a software rasteriser) 4x played at 1-2.3x while Canvas at 55 fps played 3.7x.
 */
import type { World } from '../sim';

/** Longest frame the loop catches up on (a hidden tab or a stall must not fast-forward the match). */
export const MAX_DELTA_MS = 250;
const TICK_DUE_SLACK_MS = 1e-6;
/** Most ticks played in one display frame (8x at 30 fps is about 14). */
export const MAX_TICKS_PER_FRAME = 48;
/** The 3-2-1 before a match with people, so nobody starts a second late. */
export const COUNTDOWN_MS = 3000;

/** Since the page loaded, over the frames that played (not paused, not ended). */
export interface PaceCounts {
  /** Milliseconds the clock moved between display frames (what the match is stepped by, before the cap). */
  readonly clockMs: number;
  /** The same, each frame's capped at MAX_DELTA_MS (a stall is not caught up). */
  readonly frameMs: number;
  /** The same times the speed: the game time those frames called for. */
  readonly gameMs: number;
  /** Game time called for but not played (frames that hit MAX_TICKS_PER_FRAME drop the rest). */
  readonly droppedGameMs: number;
}

export class FrameClock {
  /** Display-frame ms that played or faded out (effects age by it; it stands still while paused). */
  displayMs = 0;
  /** Fraction of the way from the previous tick to the current one, in [0, 1]. */
  alpha = 1;
  /** Display-frame ms of countdown left; the match waits at tick 0 meanwhile. */
  countdownLeft = 0;
  /** Each agent's x, y and angle before the latest tick (what the renderer interpolates from). */
  prev = new Float64Array(0);
  private readonly paceCounts = { clockMs: 0, frameMs: 0, gameMs: 0, droppedGameMs: 0 };
  /** Game ms called for and not yet played. */
  private accumulator = 0;
  /** The clock at the last display frame (null before the first). */
  private lastFrameAt: number | null = null;
  private ticksThisFrame = 0;

  get pace(): PaceCounts {
    return { ...this.paceCounts };
  }

  /** Milliseconds since the last display frame (0 at the first), and the same capped at MAX_DELTA_MS. */
  frameAt(now: number): { readonly elapsed: number; readonly delta: number } {
    const elapsed = this.lastFrameAt === null ? 0 : Math.max(now - this.lastFrameAt, 0);
    this.lastFrameAt = now;
    return { elapsed, delta: Math.min(elapsed, MAX_DELTA_MS) };
  }

  /** A frame after the end: the last effects fade out. */
  fade(delta: number): void {
    this.displayMs += delta;
  }

  /**
   * A countdown frame (the countdown runs on display-frame time, so it pauses with the page
   * and tests can step it): the cue when the second shown changes, else null.
   */
  countDown(delta: number): 'count' | 'go' | null {
    const shown = Math.ceil(this.countdownLeft / 1000);
    this.displayMs += delta;
    this.countdownLeft = Math.max(0, this.countdownLeft - delta);
    const now = Math.ceil(this.countdownLeft / 1000);
    return now === shown ? null : now === 0 ? 'go' : 'count';
  }

  /** A playing frame: the game time `delta` at `speed` calls for becomes due. */
  play(elapsed: number, delta: number, speed: number): void {
    this.displayMs += delta;
    this.accumulator += delta * speed;
    this.paceCounts.clockMs += elapsed;
    this.paceCounts.frameMs += delta;
    this.paceCounts.gameMs += delta * speed;
    this.ticksThisFrame = 0;
  }

  /** Whether one more tick of `tickMs` is due in this frame; if so it counts as played. */
  nextTick(tickMs: number): boolean {
    // Clock differences carry rounding (60 frames of 1000/60 ms sum to 999.9999999999998):
    // a tick due within a nanosecond is due.
    if (this.accumulator < tickMs - TICK_DUE_SLACK_MS || this.ticksThisFrame >= MAX_TICKS_PER_FRAME) return false;
    this.accumulator -= tickMs;
    this.ticksThisFrame++;
    return true;
  }

  /** After a playing frame's ticks: drop what a full frame could not play, and place the drawing between ticks. */
  endFrame(tickMs: number, done: boolean): number {
    if (this.ticksThisFrame === MAX_TICKS_PER_FRAME && this.accumulator > tickMs) {
      this.paceCounts.droppedGameMs += this.accumulator - tickMs;
      this.accumulator = tickMs;
    }
    this.alpha = done ? 1 : Math.min(1, Math.max(0, this.accumulator / tickMs));
    return this.ticksThisFrame;
  }

  /** Show the world as it is: nothing due, no interpolation. */
  settle(): void {
    this.accumulator = 0;
    this.alpha = 1;
  }

  /** Remember every agent's pose before a tick. */
  snapshot(world: World): void {
    if (this.prev.length !== world.agents.length * 3) this.prev = new Float64Array(world.agents.length * 3);
    for (const a of world.agents) this.snapshotAgent(world, a.id);
  }

  /** Remember one agent's pose (a respawned agent jumps instead of sliding from where it died). */
  snapshotAgent(world: World, id: number): void {
    const a = world.agents[id]!;
    this.prev[id * 3] = a.x;
    this.prev[id * 3 + 1] = a.y;
    this.prev[id * 3 + 2] = a.angle;
  }
}
