/**
 * The progress bar's pace and ETA come from recent updates, so a resumed run (its finished
 * part reported at once) or a cache-fast start does not promise an early end. The clock
 * and the stream are passed in: no test waits.
 */
import { describe, expect, it } from 'vitest';
import { ProgressBar, StatusLine, formatDuration, formatRate } from '../../src/cli/progress';

function bar(total: number, windowSeconds?: number) {
  let now = 0;
  const lines: string[] = [];
  const progress = new ProgressBar(total, 'episodes', {
    stream: { isTTY: false, columns: 160, write: (s: string) => lines.push(s) > 0 },
    now: () => now,
    ...(windowSeconds ? { windowSeconds } : {}),
  });
  return { progress, lines, at: (seconds: number) => (now = seconds * 1000) };
}

describe('ProgressBar', () => {
  it('does not count work reported at once on resuming as pace', () => {
    const { progress, lines, at } = bar(1000);
    at(0);
    progress.update(600, 'resumed'); // 600 episodes on disk, reported in the first update
    at(60);
    progress.update(605, 'playing');
    expect(progress.rate()).toBeCloseTo(5 / 60);
    expect(lines.at(-1)).toContain('5.0 episodes/min');
    expect(lines.at(-1)).toContain(`ETA ${formatDuration(395 * 12)}`); // 395 left at 12 s each
  });

  it('leaves out of the pace work found done row after row, seconds apart, as a reproduction resumes', () => {
    const { progress, lines, at } = bar(8800);
    const found = [1000, 2000, 3373]; // each row's records found on disk, 2 s apart
    found.forEach((done, i) => (at(2 * i), progress.resumed(done, 'resuming')));
    [3374, 3375].forEach((done, i) => (at(64 + 60 * i), progress.update(done, 'bt vs llm')));
    // Two episodes played in the 124 s since the first update: about 1 a minute, not 19 a second.
    expect(progress.rate()).toBeCloseTo(2 / 124);
    expect(lines.at(-1)).toContain('3,375/8,800 episodes  58 episodes/h');
  });

  it('counts as found only what resumed() adds to the total, after episodes played', () => {
    const { progress, at } = bar(100);
    at(0);
    progress.update(10, 'played');
    at(60);
    progress.resumed(10, 'a new row, nothing found');
    progress.resumed(40, 'a row with 30 found');
    at(120);
    progress.update(42, 'played');
    // 2 played in the two minutes since the first update (at 10 done); the 30 found are not pace.
    expect(progress.rate()).toBeCloseTo(2 / 120);
  });

  it('measures the pace over the recent window only, so a fast start is forgotten', () => {
    const { progress, at } = bar(10_000, 300);
    at(0);
    progress.update(0, '');
    at(10);
    progress.update(2000, ''); // the cache answered these
    for (let t = 70; t <= 1000; t += 60) {
      at(t);
      progress.update(2000 + ((t - 10) / 60) * 6, ''); // then 6 a minute
    }
    expect(progress.rate() * 60).toBeCloseTo(6);
  });

  it('has no pace before two updates apart in time', () => {
    const { progress, lines, at } = bar(10);
    at(5);
    progress.update(3, '');
    expect(progress.rate()).toBeNaN();
    expect(lines[0]).toContain('ETA ?');
  });

  it('writes a plain line at most every 10 s, and always the last', () => {
    const { progress, lines, at } = bar(3);
    at(0);
    progress.update(1, '');
    at(5);
    progress.update(2, '');
    at(6);
    progress.update(3, '');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('100% 3/3');
  });

  it('writes a line held back by the 10 s once they end, so a log never shows an old figure while work is slow', () => {
    let now = 0;
    const lines: string[] = [];
    const timers: { at: number; write: () => void; cancelled: boolean }[] = [];
    const progress = new ProgressBar(100, 'episodes', {
      stream: { isTTY: false, columns: 160, write: (s: string) => lines.push(s) > 0 },
      now: () => now,
      schedule: (write, ms) => {
        const timer = { at: now + ms, write, cancelled: false };
        timers.push(timer);
        return () => void (timer.cancelled = true);
      },
    });
    const advance = (ms: number) => {
      now += ms;
      for (const t of timers.filter((t) => !t.cancelled && t.at <= now)) (t.cancelled = true), t.write();
    };
    // A resumed run reports its finished rows at once, then plays a slow row.
    progress.update(10, 'row 1');
    progress.update(20, 'row 2');
    progress.update(30, 'row 3');
    expect(lines).toHaveLength(1);
    expect(timers).toHaveLength(1); // one write waits, whatever the number of updates held
    advance(9_999);
    expect(lines).toHaveLength(1);
    advance(1);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('30/100 episodes');
    expect(lines[1]).toContain('row 3');
    // Nothing held: nothing written while the slow row plays.
    advance(60_000);
    expect(lines).toHaveLength(2);
    // An update after the 10 s is written at once; one held and then overtaken by done() is dropped.
    progress.update(31, 'row 3');
    progress.update(32, 'row 3');
    progress.done('stopped');
    advance(60_000);
    expect(lines.slice(2)).toEqual([expect.stringContaining('31/100'), 'stopped\n']);
  });
});

describe('formatRate', () => {
  it('uses the largest unit that keeps the figure at 1 or more', () => {
    expect(formatRate(36_500, 'steps')).toBe('36,500 steps/s');
    expect(formatRate(2.5, 'episodes')).toBe('2.5 episodes/s');
    expect(formatRate(0.09, 'episodes')).toBe('5.4 episodes/min');
    expect(formatRate(0.001, 'episodes')).toBe('3.6 episodes/h');
    expect(formatRate(Number.NaN, 'episodes')).toBe('? episodes/s');
  });
});

describe('StatusLine', () => {
  const line = (isTTY: boolean) => {
    let now = 0;
    const written: string[] = [];
    const status = new StatusLine({ stream: { isTTY, columns: 160, write: (s: string) => written.push(s) > 0 }, now: () => now });
    return { status, written, at: (ms: number) => (now = ms) };
  };

  it('in a log, writes a line at most every 10 s instead of every update on one line', () => {
    const { status, written, at } = line(false);
    for (let i = 1; i <= 280; i++) {
      at(i * 100);
      status.update(`planner: ${i} of 280 matches played`);
    }
    expect(written).toEqual(['planner: 1 of 280 matches played\n', 'planner: 101 of 280 matches played\n', 'planner: 201 of 280 matches played\n']);
    // The last line is written when the status ends, once.
    status.end();
    status.end();
    expect(written.slice(3)).toEqual(['planner: 280 of 280 matches played\n']);
  });

  it('on a terminal, writes each new line over the last, and ends it before other output', () => {
    const { status, written } = line(true);
    status.update('10 of 20');
    status.update('10 of 20');
    status.update('9 of 20');
    status.end();
    // A shorter line covers what the longer one left.
    expect(written).toEqual(['\r10 of 20', '\r9 of 20 ', '\n']);
  });
});
