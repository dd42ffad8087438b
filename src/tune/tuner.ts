/**
 * The tuner: python/tune/tune_strategist.py, run as a tool behind npm run llm:tune (the
 * product stays TypeScript; torch is only here). It reads the tuning set (dataset.ts) and
 * writes the adapter; its JSON lines of progress come back as events. A run stopped midway
 * resumes from the checkpoint it left in the work folder.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** Where the tuner's Python lives unless --python says otherwise (npm run llm:tune -- --setup makes it). */
export const TUNE_VENV = '.venv-train';
export const TUNER_SCRIPT = 'python/tune/tune_strategist.py';
export const TUNE_REQUIREMENTS = 'python/tune/requirements.txt';
export const TUNE_SETUP_HELP = `npm run llm:tune -- --setup installs the tuner's packages (${TUNE_REQUIREMENTS}: torch, numpy, gguf) into ${TUNE_VENV}; or pass --python <a python with them>`;

/** The tuner's settings (tune_strategist.py Settings: every one is documented there). */
export interface TunerSettings {
  readonly layers: number;
  readonly rank: number;
  readonly alpha: number;
  readonly steps: number;
  readonly batch: number;
  readonly lr: number;
  readonly seed: number;
  readonly threads: number;
  /** An adapter to start from instead of the base model (the same layers, rank and alpha); absent: the base model. */
  readonly init?: string;
}


export const DEFAULT_TUNER: TunerSettings = { layers: 6, rank: 8, alpha: 16, steps: 500, batch: 8, lr: 2e-3, seed: 0, threads: 1 };

/** One line the tuner printed. */
export type TunerEvent = { readonly event: string } & Record<string, unknown>;

/** What the tuner wrote beside the adapter (metrics.json). */
export interface TunerMetrics {
  readonly settings: Record<string, unknown>;
  readonly examples: { readonly train: number; readonly held: number };
  readonly history: Record<string, unknown>[];
  /** The layers that carry LoRA and the weights it tunes in each. */
  readonly lora: { readonly layers: number[]; readonly targets: string[] };
  /** Wall-clock seconds of the run that finished (a resumed run's last part). */
  readonly seconds: number;
}

export function defaultPython(): string | null {
  const path = join(TUNE_VENV, 'bin', 'python');
  return existsSync(path) ? path : null;
}

/** Run the tuner on `work` (data.jsonl, meta.json), writing the adapter to `out`. */
export async function runTuner(python: string, work: string, out: string, settings: TunerSettings, onEvent: (e: TunerEvent) => void): Promise<TunerMetrics> {
  const args = [TUNER_SCRIPT, '--work', work, '--out', out, ...Object.entries(settings).flatMap(([k, v]) => [`--${k}`, String(v)])];
  const child = spawn(python, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const errors: string[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => {
    errors.push(line);
    if (errors.length > 40) errors.shift();
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      onEvent(JSON.parse(line) as TunerEvent);
    } catch {
      errors.push(line);
    }
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', (err) => reject(new Error(`cannot run the tuner with ${python}: ${err.message}; ${TUNE_SETUP_HELP}`)));
    child.on('close', resolve);
  });
  if (code !== 0) throw new Error(`the tuner failed (exit ${code}):\n${errors.join('\n')}`);
  return JSON.parse(readFileSync(join(work, 'metrics.json'), 'utf8')) as TunerMetrics;
}

/** Install the tuner's packages into TUNE_VENV with the system's python3. */
export async function setupTuner(log: (line: string) => void): Promise<string> {
  const run = (cmd: string, args: string[]) =>
    new Promise<void>((resolve, reject) => {
      log(`$ ${cmd} ${args.join(' ')}`);
      const child = spawn(cmd, args, { stdio: 'inherit' });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited with ${code}`))));
    });
  if (!existsSync(join(TUNE_VENV, 'bin', 'python'))) await run('python3', ['-m', 'venv', TUNE_VENV]);
  await run(join(TUNE_VENV, 'bin', 'pip'), ['install', '-r', TUNE_REQUIREMENTS]);
  return join(TUNE_VENV, 'bin', 'python');
}
