/**
 * The language model's pace against the game's: decisions answered per game-second over the
 * recent window against its asked rate, and the notice the page shows where it falls behind.
 * Counts and ticks only; no clock.
 */
import { describe, expect, it } from 'vitest';
import { PACE_RULES, type PaceInput, modelPace, paceNotice } from '../../src/web/modelPace';

const HZ = 50;
const PERIOD = 25; // 2 Hz

/** Answers at every `every`-th periodic request, from tick `from` to before `to`. */
function answers(from: number, to: number, every: number): number[] {
  const ticks: number[] = [];
  for (let t = from, k = 0; t < to; t += PERIOD, k++) if (k % every === 0) ticks.push(t + 3);
  return ticks.filter((t) => t < to);
}

const input = (over: Partial<PaceInput>): PaceInput => ({ answerTicks: [], tick: 0, sinceTick: 0, periodTicks: PERIOD, tickHz: HZ, ...over });

describe('modelPace', () => {
  it('keeps up where every request is answered, also with answers events asked for', () => {
    const pace = modelPace(input({ answerTicks: [...answers(0, 1000, 1), 601, 833].sort((a, b) => a - b), tick: 1000 }));
    // The window is the last 10 game-seconds: ticks 500-999, 20 requests at 2 Hz.
    expect(pace).toEqual({ decided: 22, asked: 20, seconds: 10, behind: false });
  });

  it('is behind where the model answers one request in four (4x on a model that keeps up at 1x)', () => {
    const pace = modelPace(input({ answerTicks: answers(0, 1000, 4), tick: 1000 }));
    expect(pace).toEqual({ decided: 5, asked: 20, seconds: 10, behind: true });
  });

  it('judges at the share: 16 of 20 keeps up, 15 of 20 is behind', () => {
    const all = answers(500, 1000, 1);
    expect(modelPace(input({ answerTicks: all.slice(0, 16), tick: 1000 }))!.behind).toBe(false);
    expect(modelPace(input({ answerTicks: all.slice(0, 15), tick: 1000 }))!.behind).toBe(true);
  });

  it('counts only the window since the latest change of speed or waiting, and judges nothing before minSeconds of it', () => {
    const slow = answers(0, 600, 4);
    const kept = [...slow, ...answers(600, 1000, 1)];
    // At tick 780 only 3.6 game-seconds have passed since the change at 600: not yet judged.
    expect(modelPace(input({ answerTicks: kept, tick: 780, sinceTick: 600 }))).toBeNull();
    // At 1000, the 8 game-seconds since 600 alone count: the slow answers before do not.
    expect(modelPace(input({ answerTicks: kept, tick: 1000, sinceTick: 600 }))).toEqual({ decided: 16, asked: 16, seconds: 8, behind: false });
  });

  it('counts requests on the ticks the strategist asks (multiples of its period), and answers applied before the current tick', () => {
    // Window [300, 520): requests at 300, 325, ..., 500 (9); an answer at 520 is not yet in.
    const pace = modelPace(input({ answerTicks: [310, 520], tick: 520, sinceTick: 300 }), { ...PACE_RULES, minSeconds: 1 });
    expect(pace).toEqual({ decided: 1, asked: 9, seconds: 4.4, behind: true });
  });

  it('has nothing to judge where the strategist asks on events only', () => {
    expect(modelPace(input({ answerTicks: [10, 20], tick: 1000, periodTicks: 0 }))).toBeNull();
  });
});

describe('paceNotice', () => {
  const behind = { decided: 5, asked: 20, seconds: 10, behind: true };
  const keeping = { decided: 20, asked: 20, seconds: 10, behind: false };

  it('says how far behind the model is at the speed chosen', () => {
    expect(paceNotice(4, false, [{ side: 'blue', pace: behind }])).toBe(
      'The language model decides slower than the game at 4x: it decided 5 times in the last 10 game-seconds, of 20 asked.',
    );
  });

  it('says nothing at 1x and below, while the page waits for the model, or where the model keeps up', () => {
    expect(paceNotice(1, false, [{ side: 'blue', pace: behind }])).toBeNull();
    expect(paceNotice(0.5, false, [{ side: 'blue', pace: behind }])).toBeNull();
    expect(paceNotice(8, true, [{ side: 'blue', pace: behind }])).toBeNull();
    expect(paceNotice(8, false, [{ side: 'blue', pace: keeping }, { side: 'red', pace: null }])).toBeNull();
  });

  it('names the side where two language models play', () => {
    expect(paceNotice(2, false, [{ side: 'blue', pace: keeping }, { side: 'red', pace: { ...behind, decided: 1 } }])).toBe(
      'The language model playing red decides slower than the game at 2x: it decided 1 time in the last 10 game-seconds, of 20 asked.',
    );
  });
});
