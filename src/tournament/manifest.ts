/**
 * A tournament's manifest (manifest.json beside its records): the settings, the code
 * version, and fingerprints of what decides results (the code that plays an episode, the
 * game config, every trained model the teams use, and the language model each llm team
 * answers with). A resumed run and every queue worker
 * compare their own fingerprints with it, and refuse, naming each difference, when they
 * differ.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { type LlmAvailability, llmSettingsOf } from '../llm';
import { DEFAULT_CONFIG } from '../sim';
import { teamNeeds } from '../teams';
import type { NodePlatform } from '../teams/nodePlatform';
import type { TournamentSettings } from './plan';

export const MANIFEST_FORMAT = 'hillmind-tournament';

export interface Manifest {
  readonly format: typeof MANIFEST_FORMAT;
  readonly version: 1;
  /** Names the tournament on a queue (manifests written before it had none: see tournamentId). */
  readonly id?: string;
  readonly settings: TournamentSettings;
  readonly code: { readonly version: string };
  /** Fingerprints of what decides results: the code, the game config, every model the teams use, each team's language model. */
  readonly fingerprints: Record<string, string>;
  readonly createdAt: string;
}

/** A manifest read from outside (a file, a queue): checked whole before anything trusts it. */
export const manifestSchema = z.object({
  format: z.literal(MANIFEST_FORMAT),
  version: z.literal(1),
  id: z.string().min(1).max(200).optional(),
  settings: z.object({
    teams: z.array(z.string().min(1).max(200)).min(2).max(64),
    episodes: z.number().int().min(1),
    seed: z.number().int().min(0),
  }),
  code: z.object({ version: z.string().max(100) }),
  fingerprints: z.record(z.string().max(300), z.string().max(200)),
  createdAt: z.string().max(100),
});

const digest = (data: string | Buffer) => createHash('sha256').update(data).digest('hex').slice(0, 16);

// The sources that play an episode and shape its record (reports and the queue do not).
const SRC = fileURLToPath(new URL('..', import.meta.url));
const CODE_DIRS = ['sim', 'skills', 'teams', 'match', 'llm'];
const CODE_FILES = ['tournament/plan.ts', 'tournament/records.ts', 'tournament/episodeThread.ts'];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(SRC, dir))
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(join(SRC, path)).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
    });
}

/** A digest of the sources that play an episode: two machines with it equal play alike. */
export function codeDigest(): string {
  try {
    const hash = createHash('sha256');
    for (const file of [...CODE_DIRS.flatMap(sourceFiles), ...CODE_FILES]) hash.update(`${file}\n`).update(readFileSync(join(SRC, file)));
    return hash.digest('hex').slice(0, 16);
  } catch {
    return 'unknown';
  }
}

export function codeVersion(): string {
  try {
    return (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** The code, the game config, every trained model the teams declare they need, and the language model of each team that asks one, on this platform. */
export async function fingerprints(teams: readonly string[], platform: NodePlatform): Promise<Record<string, string>> {
  const result: Record<string, string> = { code: codeDigest(), config: digest(JSON.stringify(DEFAULT_CONFIG)) };
  const models = new Set<string>();
  const engine = engineDecoding(platform);
  for (const id of teams) {
    const needs = await teamNeeds(id, platform);
    for (const name of needs.models) models.add(name);
    if (needs.languageModel) result[`${LANGUAGE_MODEL_KEY}${id}`] = languageModelFingerprint(await (needs.llm ?? platform.llm).availability(), engine);
  }
  for (const name of models) {
    const fingerprint = platform.models.fingerprint(name);
    if (fingerprint) result[`model:${name}`] = fingerprint;
  }
  return result;
}

/** A team's language-model fingerprint is under this prefix and the team's id ("language-model:llm"). */
export const LANGUAGE_MODEL_KEY = 'language-model:';

/**
 * What decides a team's answers: the model as its access names it (the local model names its
 * adapter by the adapter file's digest, "...+strategist-gemma3-270m@bdccd4ac"), the
 * strategist's settings that shape answers (format, temperature, rate, events, timing,
 * skills, answer length) and, for the local engine, how it decodes (engineDecoding). Not what
 * a machine chooses: the threads, the provider's wording, or the server's address (a queue
 * worker asks the model server beside it), so the same checkout elsewhere checks the same
 * records. Nor what is done when the model falls silent (the timeout, how many in a row, stop
 * or continue), which a stopped run's message tells the operator to change before --resume:
 * where play goes on past a timeout, the decisions it failed are counted in the records.
 */
function languageModelFingerprint(availability: LlmAvailability, engine: EngineDecoding | null): string {
  if (!availability.ok) return 'unavailable';
  const { timeoutMs: _timeout, maxTimeouts: _timeouts, onSilence: _silence, ...answering } = availability.settings;
  return digest(JSON.stringify({ model: availability.model, settings: answering, ...(engine ? { engine } : {}) }));
}

/** How the local engine turns a model's output into an answer, for every local model of the process. */
interface EngineDecoding {
  /** LLM_COMPACT: a compact answer's numbers read from the probabilities (scores) or sampled. */
  readonly compact: string;
  /** LLM_CONTEXT: the tokens a prompt and its answer share, which bounds both. */
  readonly contextSize: number;
}

/** The local engine's decoding where the platform's language model is local; null for a server's. */
function engineDecoding(platform: NodePlatform): EngineDecoding | null {
  const result = llmSettingsOf(platform.spec.llm);
  if (!result.ok || result.settings.source !== 'local') return null;
  return { compact: result.settings.compact, contextSize: result.settings.contextSize };
}

export async function buildManifest(settings: TournamentSettings, platform: NodePlatform): Promise<Manifest> {
  return {
    format: MANIFEST_FORMAT,
    version: 1,
    id: randomUUID(),
    settings,
    code: { version: codeVersion() },
    fingerprints: await fingerprints(settings.teams, platform),
    createdAt: new Date().toISOString(),
  };
}

/** The tournament's name on a queue: stable across --resume. */
export function tournamentId(manifest: Manifest): string {
  return manifest.id ?? digest(`${manifest.createdAt}|${JSON.stringify(manifest.settings)}`);
}

/** The manifest at `path`; every way it can be unreadable is an error naming the file. */
export function readManifest(path: string): Manifest {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`${path} is not a readable tournament manifest (${(err as Error).message}); restore it from a backup, or choose a new --out`);
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) throw new Error(`${path} is not a tournament manifest: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data as Manifest;
}

/**
 * How what runs here differs from the manifest: the code version and each fingerprint,
 * named with both values ("model:flat is 1a2b... here, 3c4d... in the manifest").
 */
export function manifestDifferences(manifest: Pick<Manifest, 'code' | 'fingerprints'>, here: Pick<Manifest, 'code' | 'fingerprints'>): string[] {
  const differences: string[] = [];
  if (manifest.code.version !== here.code.version) differences.push(`code version is ${here.code.version} here, ${manifest.code.version} in the manifest`);
  for (const key of [...new Set([...Object.keys(manifest.fingerprints), ...Object.keys(here.fingerprints)])].sort()) {
    const theirs = manifest.fingerprints[key];
    const ours = here.fingerprints[key];
    if (theirs === ours) continue;
    if (ours === undefined) differences.push(`${key} is missing here (${theirs} in the manifest)`);
    else if (theirs === undefined) differences.push(`${key} is ${ours} here, absent from the manifest`);
    else differences.push(`${key} is ${ours} here, ${theirs} in the manifest`);
  }
  return differences;
}

/** Refuse to resume into a directory made with other settings, code or models. */
export function checkResume(found: Manifest, expected: Manifest): void {
  const differences: string[] = [];
  const s = found.settings;
  const teamsChanged = s.teams.join(',') !== expected.settings.teams.join(',');
  if (teamsChanged) differences.push(`--teams ${s.teams.join(',')} (now ${expected.settings.teams.join(',')})`);
  if (s.episodes !== expected.settings.episodes) differences.push(`--episodes ${s.episodes} (now ${expected.settings.episodes})`);
  if (s.seed !== expected.settings.seed) differences.push(`--seed ${s.seed} (now ${expected.settings.seed})`);
  if (found.code.version !== expected.code.version) differences.push(`code version ${found.code.version} (now ${expected.code.version})`);
  for (const key of new Set([...Object.keys(found.fingerprints), ...Object.keys(expected.fingerprints)])) {
    // Other teams need other models: a fingerprint only one side has is the teams' change.
    if (teamsChanged && !(key in found.fingerprints && key in expected.fingerprints)) continue;
    if (!(key in found.fingerprints) && key.startsWith(LANGUAGE_MODEL_KEY)) differences.push(`${key} is not named by the run's manifest (a version that did not name language models started it)`);
    else if (!(key in found.fingerprints)) differences.push(`${key} is not named by the run's manifest`);
    else if (found.fingerprints[key] !== expected.fingerprints[key]) differences.push(`${key} changed since the run started`);
  }
  if (differences.length) {
    throw new Error(`cannot resume: this tournament was started with ${differences.join('; ')}. Use the original settings, or a new --out directory.`);
  }
}
