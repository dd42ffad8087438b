/**
 * Running a tournament: check every team can play before the first episode, write the
 * manifest, play the planned episodes not yet recorded on a pool of worker threads, append
 * each record as it ends, and write the reports.
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import { serveChatClient } from '../llm/channel';
import { DEFAULT_CONFIG } from '../sim';
import { type Platform, TeamUnavailable, teamAvailability, teamEntry } from '../teams';
import { type NodePlatformOptions, nodePlatform } from '../teams/nodePlatform';
import { type PlannedEpisode, type TournamentSettings, planEpisodes } from './plan';
import { type EpisodeRecord, RecordWriter, readRecords } from './records';
import { reportHtml, reportMarkdown, reportText } from './report';
import { type TournamentSummary, summarizeTournament } from './summary';

export const MANIFEST_FORMAT = 'hillmind-tournament';

export interface Manifest {
  readonly format: typeof MANIFEST_FORMAT;
  readonly version: 1;
  readonly settings: TournamentSettings;
  readonly code: { readonly version: string };
  /** Fingerprints of what decides results: the game config and every model the teams use. */
  readonly fingerprints: Record<string, string>;
  readonly createdAt: string;
}

const digest = (data: string | Buffer) => createHash('sha256').update(data).digest('hex').slice(0, 16);

/** The game config and every trained model the teams declare they need. */
async function fingerprints(teams: readonly string[], platform: Platform): Promise<Record<string, string>> {
  const result: Record<string, string> = { config: digest(JSON.stringify(DEFAULT_CONFIG)) };
  const models = new Set<string>();
  for (const id of teams) for (const name of (await teamEntry(id).needs(platform)).models) models.add(name);
  for (const name of models) {
    const fingerprint = platform.models.fingerprint(name);
    if (fingerprint) result[`model:${name}`] = fingerprint;
  }
  return result;
}

function codeVersion(): string {
  try {
    return (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** One short call to the language model, so an unreachable one stops the run before it starts. */
async function probeLanguageModel(platform: Platform): Promise<void> {
  const connection = await platform.llm.connect();
  const timeoutMs = Math.max(5000, connection.settings.timeoutMs * 3);
  try {
    await connection.client.complete({ messages: [{ role: 'user', content: 'Reply with: 1,1' }], temperature: 0, maxTokens: 8 }, AbortSignal.timeout(timeoutMs));
  } catch (err) {
    throw new TeamUnavailable('llm', `cannot reach the model ${connection.client.model} (${connection.provider}): ${(err as Error).message}`);
  }
}

/** Every team must exist and be able to play here: fail before any episode otherwise. */
export async function checkTeams(teams: readonly string[], platform: Platform): Promise<void> {
  if (teams.length < 2) throw new Error(`a tournament needs at least two teams, got ${teams.length}`);
  const seen = new Set<string>();
  for (const id of teams) {
    if (seen.has(id)) throw new Error(`team '${id}' is listed twice`);
    seen.add(id);
    teamEntry(id);
  }
  let needsLanguageModel = false;
  for (const id of teams) {
    const availability = await teamAvailability(id, platform);
    if (!availability.ok) throw new TeamUnavailable(id, availability.reason);
    needsLanguageModel ||= availability.needs.languageModel;
  }
  if (needsLanguageModel) await probeLanguageModel(platform);
}

/** Refuse to resume into a directory made with other settings. */
function checkManifest(path: string, expected: Manifest): void {
  const found = JSON.parse(readFileSync(path, 'utf8')) as Manifest;
  const differences: string[] = [];
  const s = found.settings;
  if (s.teams.join(',') !== expected.settings.teams.join(',')) differences.push(`--teams ${s.teams.join(',')} (now ${expected.settings.teams.join(',')})`);
  if (s.episodes !== expected.settings.episodes) differences.push(`--episodes ${s.episodes} (now ${expected.settings.episodes})`);
  if (s.seed !== expected.settings.seed) differences.push(`--seed ${s.seed} (now ${expected.settings.seed})`);
  for (const key of new Set([...Object.keys(found.fingerprints), ...Object.keys(expected.fingerprints)])) {
    if (found.fingerprints[key] !== expected.fingerprints[key]) differences.push(`${key} changed since the run started`);
  }
  if (differences.length) {
    throw new Error(`cannot resume: this tournament was started with ${differences.join('; ')}. Use the original settings, or a new --out directory.`);
  }
}

export interface RunOptions {
  readonly settings: TournamentSettings;
  /** What the coordinator and every worker thread build their platform from. */
  readonly platform: NodePlatformOptions;
  readonly out: string;
  readonly workers: number;
  readonly resume: boolean;
  /** Episodes played at once within a worker (so batched inference can group them). */
  readonly perWorker?: number;
  /** LLM episodes in flight at once across the tournament (they wait on the network, not a core). */
  readonly llmConcurrency?: number;
  readonly onProgress?: (done: number, total: number) => void;
}

export interface RunResult {
  readonly records: readonly EpisodeRecord[];
  readonly summary: TournamentSummary;
  readonly played: number;
  readonly skipped: number;
}

export function describeSettings(settings: TournamentSettings): string {
  return `teams ${settings.teams.join(', ')}; ${settings.episodes} episodes per matchup, sides swapped every other episode; tournament seed ${settings.seed}.`;
}

export async function runTournament(options: RunOptions): Promise<RunResult> {
  const { settings, out } = options;
  const platform = nodePlatform(options.platform);
  await checkTeams(settings.teams, platform);
  mkdirSync(out, { recursive: true });
  const manifestPath = join(out, 'manifest.json');
  const recordsPath = join(out, 'episodes.jsonl');
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    version: 1,
    settings,
    code: { version: codeVersion() },
    fingerprints: await fingerprints(settings.teams, platform),
    createdAt: new Date().toISOString(),
  };
  if (existsSync(manifestPath) || existsSync(recordsPath)) {
    if (!options.resume) throw new Error(`${out} already holds a tournament: add --resume to continue it, or choose a new --out`);
    if (existsSync(manifestPath)) checkManifest(manifestPath, manifest);
  }
  if (!existsSync(manifestPath)) writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);

  const plan = planEpisodes(settings);
  const planned = new Set(plan.map((e) => e.key));
  const existing = readRecords(recordsPath).filter((r) => planned.has(r.key));
  const done = new Set(existing.map((r) => r.key));
  const todo: PlannedEpisode[] = plan.filter((e) => !done.has(e.key));
  const records: EpisodeRecord[] = [...existing];
  options.onProgress?.(records.length, plan.length);

  if (todo.length > 0) {
    const needsLanguageModel = (await Promise.all(settings.teams.map((id) => teamEntry(id).needs(platform)))).some((n) => n.languageModel);
    // A model in this process (the local engine, loaded by the probe) is shared with the
    // worker threads over a channel: one copy in memory, its sequences batched together.
    const connection = needsLanguageModel ? await platform.llm.connect() : null;
    const channel = connection?.inProcess ? `hillmind-llm-${process.pid}-${randomUUID()}` : null;
    const stopSharing = channel ? serveChatClient(connection!.client, channel) : null;
    const writer = new RecordWriter(recordsPath);
    const pool = new Piscina({
      filename: new URL('./worker.ts', import.meta.url).href,
      minThreads: options.workers,
      maxThreads: options.workers,
      workerData: channel ? { ...options.platform, engineChannel: channel } : options.platform,
      concurrentTasksPerWorker: needsLanguageModel ? Math.max(1, Math.ceil((options.llmConcurrency ?? 8) / options.workers)) : (options.perWorker ?? 4),
      // The worker is TypeScript: give its thread the same loader the CLI runs under.
      execArgv: [...process.execArgv.filter((a) => !a.startsWith('--cpu-prof')), ...(process.execArgv.some((a) => a.includes('tsx')) ? [] : ['--import', 'tsx'])],
    });
    try {
      await Promise.all(
        todo.map(async (episode) => {
          const record = (await pool.run(episode)) as EpisodeRecord;
          writer.append(record);
          records.push(record);
          options.onProgress?.(records.length, plan.length);
        }),
      );
    } finally {
      writer.close();
      await pool.destroy();
      stopSharing?.();
    }
  }

  const summary = summarizeTournament(records, settings.teams, settings.seed);
  const title = `Tournament: ${settings.teams.join(', ')}`;
  writeFileSync(join(out, 'report.md'), reportMarkdown(summary, title, describeSettings(settings)));
  writeFileSync(join(out, 'report.html'), reportHtml(summary, title, describeSettings(settings)));
  return { records, summary, played: todo.length, skipped: existing.length };
}

export { reportText };
