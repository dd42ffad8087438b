/**
 * The page's match clock and effects on their own, without a match: ticks due per frame,
 * the cap on a frame and what it drops, the countdown's cues, and effects' lifetimes.
 */
import { describe, expect, it } from 'vitest';
import { createWorld } from '../../src/sim';
import { EffectLog } from '../../src/web/effects';
import { FrameClock, MAX_DELTA_MS, MAX_TICKS_PER_FRAME } from '../../src/web/frameClock';
import { EFFECT_MS } from '../../src/web/view';

/** Ticks one playing frame of `ms` at `speed` plays (20 ms ticks). */
function playFrame(clock: FrameClock, now: number, speed: number): number {
  const { elapsed, delta } = clock.frameAt(now);
  clock.play(elapsed, delta, speed);
  while (clock.nextTick(20));
  return clock.endFrame(20, false);
}

describe('FrameClock', () => {
  it('plays the ticks the clock and speed call for, carrying the remainder to the next frame', () => {
    const clock = new FrameClock();
    expect(playFrame(clock, 0, 1)).toBe(0); // the first frame has no time before it
    expect(playFrame(clock, 30, 1)).toBe(1);
    expect(clock.alpha).toBeCloseTo(0.5);
    expect(playFrame(clock, 40, 1)).toBe(1); // 10 ms left over + 10 ms
    expect(playFrame(clock, 50, 4)).toBe(2);
    expect(clock.pace).toEqual({ clockMs: 50, frameMs: 50, gameMs: 80, droppedGameMs: 0 });
  });

  it('catches up at most MAX_DELTA_MS, plays at most MAX_TICKS_PER_FRAME a frame and counts the game time it drops', () => {
    const clock = new FrameClock();
    playFrame(clock, 0, 8);
    expect(playFrame(clock, 10_000, 8)).toBe(MAX_TICKS_PER_FRAME); // 250 ms at 8x is 100 ticks
    expect(clock.pace).toEqual({ clockMs: 10_000, frameMs: MAX_DELTA_MS, gameMs: 8 * MAX_DELTA_MS, droppedGameMs: 8 * MAX_DELTA_MS - (MAX_TICKS_PER_FRAME + 1) * 20 });
    expect(clock.alpha).toBe(1);
  });

  it('counts down on display time with a cue at each second and go at the end', () => {
    const clock = new FrameClock();
    clock.countdownLeft = 3000;
    const cues = [];
    for (let i = 0; i < 40; i++) cues.push(clock.countDown(100));
    expect(cues.filter((c) => c !== null)).toEqual(['count', 'count', 'go']);
    expect(clock.countdownLeft).toBe(0);
    expect(clock.displayMs).toBe(4000);
  });
});

describe('EffectLog', () => {
  it('keeps an effect for its lifetime, and the newest 256 at most', () => {
    const world = createWorld(1);
    const log = new EffectLog();
    log.add(world, { type: 'dash', tick: 0, agent: 0 }, 0, []);
    log.prune(EFFECT_MS.dash - 1);
    expect(log.effects).toHaveLength(1);
    log.prune(EFFECT_MS.dash);
    expect(log.effects).toHaveLength(0);
    for (let i = 0; i < 300; i++) log.add(world, { type: 'dash', tick: 0, agent: 0 }, i, []);
    expect(log.effects).toHaveLength(256);
    expect(log.effects[0]!.born).toBe(44);
  });
});
