/** A one-line progress bar for long work (training, tournaments); plain lines when not a terminal. */

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h ? `${h}h${String(m).padStart(2, '0')}m` : m ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

export class ProgressBar {
  private readonly started = performance.now();
  private lastPlain = 0;

  constructor(
    private readonly total: number,
    private readonly unit: string,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  update(done: number, details: string): void {
    const elapsed = (performance.now() - this.started) / 1000;
    const fraction = Math.min(1, done / this.total);
    const rate = done / Math.max(elapsed, 1e-9);
    const eta = (this.total - done) / rate;
    const width = 24;
    const bar = '#'.repeat(Math.round(fraction * width)).padEnd(width, '.');
    const line = `[${bar}] ${(fraction * 100).toFixed(0).padStart(3)}% ${done.toLocaleString('en-US')}/${this.total.toLocaleString('en-US')} ${this.unit}  ${Math.round(rate).toLocaleString('en-US')} ${this.unit}/s  ${details}  ETA ${formatDuration(eta)}`;
    if (this.stream.isTTY) {
      this.stream.write(`\r${line.slice(0, (this.stream.columns ?? 160) - 1).padEnd(Math.min(160, (this.stream.columns ?? 160) - 1))}`);
    } else if (elapsed - this.lastPlain >= 10 || fraction === 1) {
      this.lastPlain = elapsed;
      this.stream.write(`${line}\n`);
    }
  }

  done(message: string): void {
    if (this.stream.isTTY) this.stream.write('\n');
    this.stream.write(`${message}\n`);
  }
}
