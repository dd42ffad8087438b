/**
 * A one-line progress bar for long work (training, tournaments, reproductions); plain lines,
 * one every 10 s, when not a terminal. A line held back by those 10 s is written when they
 * end, so a log never shows an old figure until the next update: a resumed reproduction
 * reports its finished rows at once, then waits minutes for the first new episode.
 *
 * Its pace is the recent one: the work done over the last `windowSeconds` of updates, not
 * since the start. Work that resumes from disk reports its finished part at once, and a
 * decision cache answers a rerun's first episodes in milliseconds; a pace since the start
 * would show both as speed and promise an end hours early (a resumed reproduction showed
 * "154 episodes/s, ETA 10s" for work going at 5 episodes a minute). Work found done is reported
 * with resumed(), which shows it but leaves it out of the pace: a reproduction resumes row after
 * row, seconds apart, and those jumps inside the window read as "582 episodes/s".
 */

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h ? `${h}h${String(m).padStart(2, '0')}m` : m ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/** A pace in the largest time unit that keeps it at 1 or more: "36 steps/s", "5.4 episodes/min". */
export function formatRate(perSecond: number, unit: string): string {
  if (!Number.isFinite(perSecond) || perSecond <= 0) return `? ${unit}/s`;
  const [value, per] = perSecond >= 1 ? [perSecond, 's'] : perSecond * 60 >= 1 ? [perSecond * 60, 'min'] : [perSecond * 3600, 'h'];
  return `${value >= 10 ? Math.round(value).toLocaleString('en-US') : value.toFixed(1)} ${unit}/${per}`;
}

export interface ProgressOptions {
  readonly stream?: Pick<NodeJS.WriteStream, 'write' | 'isTTY' | 'columns'>;
  /** Milliseconds on a clock that only goes forward (default performance.now). */
  readonly now?: () => number;
  /** How many seconds of the most recent updates the pace is measured over (default 300). */
  readonly windowSeconds?: number;
  /**
   * Run `write` after `ms` on the same clock; returns what cancels it. Default a timer that
   * keeps no process alive.
   */
  readonly schedule?: (write: () => void, ms: number) => () => void;
}

function unrefTimer(write: () => void, ms: number): () => void {
  const timer = setTimeout(write, ms);
  timer.unref();
  return () => clearTimeout(timer);
}

const PLAIN_LINE_SECONDS = 10;

export class ProgressBar {
  private readonly stream: NonNullable<ProgressOptions['stream']>;
  private readonly now: () => number;
  private readonly windowMs: number;
  /** Recent updates, oldest first: the pace is measured from the first to the last. */
  private readonly samples: { at: number; done: number }[] = [];
  /** The work reported by resumed(): found done on disk, so not part of the pace. */
  private foundDone = 0;
  /** The `done` of the latest update, so resumed() counts only what it adds. */
  private lastDone = 0;
  private lastPlain = -Infinity;
  private readonly schedule: NonNullable<ProgressOptions['schedule']>;
  /** In a log, the latest line held back, and what cancels its write. */
  private held: { readonly line: string; readonly cancel: () => void } | null = null;

  constructor(
    private readonly total: number,
    private readonly unit: string,
    options: ProgressOptions = {},
  ) {
    this.stream = options.stream ?? process.stderr;
    this.now = options.now ?? (() => performance.now());
    this.windowMs = (options.windowSeconds ?? 300) * 1000;
    this.schedule = options.schedule ?? unrefTimer;
  }

  /** Work done per second over the recent updates (NaN before two updates apart in time). */
  rate(): number {
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (!first || !last || last.at <= first.at) return NaN;
    return (last.done - first.done) / ((last.at - first.at) / 1000);
  }

  /**
   * Work found already done (records resumed from disk): shown, but not counted as pace.
   * `done` is the running total, as in update(); all it adds since the last update is taken as found.
   */
  resumed(done: number, details: string): void {
    this.foundDone += done - this.lastDone;
    this.update(done, details);
  }

  update(done: number, details: string): void {
    const at = this.now();
    this.lastDone = done;
    this.samples.push({ at, done: done - this.foundDone });
    // Keep one sample at or before the window's start, so the window is always spanned.
    while (this.samples.length > 2 && this.samples[1]!.at <= at - this.windowMs) this.samples.shift();
    const fraction = Math.min(1, done / this.total);
    const rate = this.rate();
    const eta = rate > 0 ? (this.total - done) / rate : NaN;
    const width = 24;
    const bar = '#'.repeat(Math.round(fraction * width)).padEnd(width, '.');
    const line = `[${bar}] ${(fraction * 100).toFixed(0).padStart(3)}% ${done.toLocaleString('en-US')}/${this.total.toLocaleString('en-US')} ${this.unit}  ${formatRate(rate, this.unit)}  ${details}  ETA ${formatDuration(eta)}`;
    if (this.stream.isTTY) {
      this.stream.write(`\r${line.slice(0, (this.stream.columns ?? 160) - 1).padEnd(Math.min(160, (this.stream.columns ?? 160) - 1))}`);
    } else if (at - this.lastPlain >= PLAIN_LINE_SECONDS * 1000 || fraction === 1) {
      this.writePlain(line, at);
    } else {
      // Held back: written when the 10 s end, unless an update comes first.
      const cancel = this.held?.cancel ?? this.schedule(() => this.writePlain(this.held!.line, this.now()), this.lastPlain + PLAIN_LINE_SECONDS * 1000 - at);
      this.held = { line, cancel };
    }
  }

  private writePlain(line: string, at: number): void {
    this.held?.cancel();
    this.held = null;
    this.lastPlain = at;
    this.stream.write(`${line}\n`);
  }

  done(message: string): void {
    this.held?.cancel();
    this.held = null;
    if (this.stream.isTTY) this.stream.write('\n');
    this.stream.write(`${message}\n`);
  }
}

/**
 * A status line that each update replaces (a teacher's "12 of 280 matches played"): over
 * the last on a terminal, else a plain line at most every 10 s, so a log holds lines, not
 * one line of every update. end() closes it before other output.
 */
export class StatusLine {
  private readonly stream: NonNullable<ProgressOptions['stream']>;
  private readonly now: () => number;
  private shown = '';
  /** In a log, the latest line not yet written (the last one is written by end()). */
  private pending = '';
  private lastPlain = -Infinity;

  constructor(options: Pick<ProgressOptions, 'stream' | 'now'> = {}) {
    this.stream = options.stream ?? process.stdout;
    this.now = options.now ?? (() => performance.now());
  }

  update(line: string): void {
    if (line === this.shown) return;
    if (this.stream.isTTY) {
      const width = (this.stream.columns ?? 160) - 1;
      this.stream.write(`\r${line.slice(0, width).padEnd(Math.min(width, this.shown.length))}`);
      this.shown = line;
      return;
    }
    const at = this.now();
    if (at - this.lastPlain < PLAIN_LINE_SECONDS * 1000) {
      this.pending = line;
      return;
    }
    this.lastPlain = at;
    this.pending = '';
    this.shown = line;
    this.stream.write(`${line}\n`);
  }

  /** Ends the line on a terminal, or writes a log's last line, so what follows starts on its own. */
  end(): void {
    if (this.stream.isTTY && this.shown) this.stream.write('\n');
    else if (this.pending) this.stream.write(`${this.pending}\n`);
    this.shown = '';
    this.pending = '';
  }
}
