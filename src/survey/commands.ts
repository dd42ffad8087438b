/**
 * The researcher's commands on a study database, one function each (`npm run survey --
 * create|list|export|analyze|close|reopen`): they take the parsed options and the store or
 * platform they work on, and say what they did through `print`, one line a call. The
 * command line (src/cli/survey.ts) parses the arguments, builds these and prints.
 * Node-only (files, SQLite, the network); imported by path, as languageModelNote.ts is.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pct } from '../report/format';
import { countOf } from '../sim';
import { type Platform, teamAvailability } from '../teams';
import { analyzeStudy, forcedChoiceTestsLine } from './analysis';
import { type StudyConfig, consentPlaceholders, teamsInPlay } from './config';
import { CSV_TABLES, type CsvTable, studyCsv, studyJson } from './export';
import { languageModelNote, languageModelTeams } from './languageModelNote';
import { studyReportFiles } from './report';
import { createStudy } from './service';
import { StudyStore } from './store';
import { textDisagreements } from './textCheck';

/** A mistake in what the researcher asked for (a missing study, an unknown table): the command line reports it as a usage error. */
export class StudyCommandError extends Error {}

/** Prints one line of a command's answer. */
export type PrintLine = (line: string) => void;

/** Where participants find the server, and whether the researcher named it (--base-url) rather than it coming from the shell's PORT and HOST. */
export interface StudyAddress {
  readonly baseUrl: string;
  readonly given: boolean;
}

/** The study database at `path`, which must exist: the commands other than create never make one. */
export function openStudyDatabase(path: string): StudyStore {
  if (!existsSync(path)) throw new StudyCommandError(`no study database at ${path} (create a study first, or pass --db)`);
  return StudyStore.open(path);
}

function requireStudy(store: StudyStore, id: string, dbPath: string): void {
  if (!store.getStudy(id)) throw new StudyCommandError(`no study '${id}' in ${dbPath}`);
}

/**
 * How long `survey create` waits for a server's health answer: long enough for a busy server
 * (health waited over a second behind a loaded engine), short enough that a missing one costs
 * a moment. It only chooses the note printed, never what is written.
 */
const HEALTH_WAIT_MS = 5000;

/** Whether a Hillmind server answers at `base` (its health route names the service). */
export async function hillmindServerAnswers(base: string): Promise<boolean> {
  try {
    const res = await fetch(`${base}/api/health`, { signal: AbortSignal.timeout(HEALTH_WAIT_MS) });
    const body = (await res.json().catch(() => null)) as { service?: string } | null;
    return res.ok && body?.service === 'hillmind';
  } catch {
    return false; // nothing there (yet)
  }
}

/** The teams that cannot play on this machine's platform (the server's models and language model), with why. */
async function unavailableTeams(ids: readonly string[], platform: Platform): Promise<{ id: string; reason: string }[]> {
  const out: { id: string; reason: string }[] = [];
  for (const id of ids) {
    const availability = await teamAvailability(id, platform);
    if (!availability.ok) out.push({ id, reason: availability.reason });
  }
  return out;
}

export interface CreateStudyOptions {
  /** Validated (parseStudyConfig) before anything is opened. */
  readonly config: StudyConfig;
  readonly dbPath: string;
  readonly address: StudyAddress;
  /** Where npm run llm:exam writes its reports, read for the language model's note. */
  readonly examDir: string;
}

export interface CreateStudyDependencies {
  /** Checks the teams, plays the bots' clips and notes the model; the caller closes it. */
  readonly platform: Platform;
  /** Opened only once the teams are known to play, so a refused study leaves no database behind. */
  readonly openStore: () => StudyStore;
  readonly serverAnswers: (base: string) => Promise<boolean>;
  /**
   * The model files this machine's server lends to pages that run the llm team's model
   * themselves (llm/servedFiles.ts lendableFiles: the pulled local model and its adapter, or none).
   */
  readonly pageModelFiles: number;
}

/** `create`: a study from the config, with its links, its admin token and what to correct before inviting anyone. */
export async function createStudyCommand(options: CreateStudyOptions, deps: CreateStudyDependencies, print: PrintLine): Promise<void> {
  const config = options.config;
  const missing = await unavailableTeams(teamsInPlay(config), deps.platform);
  if (missing.length > 0) {
    const lines = missing.map((m) => `  ${m.id}: ${m.reason}`);
    throw new StudyCommandError(
      `these teams are not available on this machine:\n${lines.join('\n')}\n\nTrain the models or configure the LLM, or compare teams that are, e.g. --teams bt-scripted,heuristic,random`,
    );
  }
  const pageModelNote = await pageModelCheck(config, deps);
  const store = deps.openStore();
  try {
    const base = options.address.baseUrl;
    const { study, adminToken, botClips } = await createStudy(store, config, deps.platform, { baseUrl: base });
    const url = `${base}/study/${study.id}`;
    print(`Created ${study.kind} study '${study.id}' in ${options.dbPath}: ${study.config.teams.join(', ')}${study.kind === 'play' ? `, ${countOf(study.config.episodesPerBlock, 'episode')} per block` : `, ${countOf(botClips, 'bot clip')}`}.`);
    print(`\nParticipants: ${url}`);
    print(`  (Prolific: ${url}?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}})`);
    print(`Progress:     ${url}/admin`);
    print(`Admin token:  ${adminToken}   (shown once; the progress page and API ask for it)`);
    if (study.config.completion.code) print(`Completion code: ${study.config.completion.code}`);
    if (study.config.completion.redirectUrl) print(`Completion redirect: ${study.config.completion.redirectUrl}`);
    const placeholders = consentPlaceholders(study.config);
    if (placeholders.length > 0) {
      print(`\nThe consent page still says to fill in ${placeholders.map((k) => `"${k}"`).join(' and ')}: set ${placeholders.length > 1 ? 'them' : 'it'} in the config before inviting participants.`);
    }
    const disagreements = textDisagreements(study.config);
    if (disagreements.length > 0) {
      print(`\nThe study's own text disagrees with its settings: correct the config before inviting participants.`);
      for (const d of disagreements) print(`  ${d.field}: "${d.sentence}" ${d.message}.`);
    }
    const modelNote = await languageModelNote(teamsInPlay(study.config), deps.platform, options.examDir);
    if (modelNote.length > 0) print(`\n${modelNote.join('\n')}`);
    // Pages that ask the server's model: its decision cache can know their situations before they come.
    if (modelNote.length > 0 && study.config.llmRuns !== 'browser') {
      print(`Before participants come, with the server stopped: npm run llm:warm -- --study ${study.id} fills its decision cache with the model's answers in this study's games (docs/studies.md).`);
    }
    if (pageModelNote) print(`\n${pageModelNote}`);
    print(`\n${await serverNote(options.address, deps.serverAnswers)}`);
    print('npm start serves it from the same database (HILLMIND_STUDY_DB if you moved it); PORT and HOST say where it listens.');
  } finally {
    store.close();
  }
}

/**
 * Where a study runs the llm team's model in the participant's page (llmRuns browser or
 * auto) and an llm team plays, the server must lend the model's files. Refused before
 * anything is written for `browser` (every participant's llm team would be unavailable);
 * a note for `auto` (every page asks the server's model instead); null otherwise.
 */
async function pageModelCheck(config: StudyConfig, deps: CreateStudyDependencies): Promise<string | null> {
  if (config.llmRuns === 'server' || deps.pageModelFiles > 0) return null;
  const users = await languageModelTeams(teamsInPlay(config), deps.platform);
  if (users.length === 0) return null;
  const why = `this machine's server lends no model files to pages: it lends the pulled local model and its adapter only where it runs them (npm run llm:pull; no OPENAI_BASE_URL or HILLMIND_LLM_GGUF)`;
  if (config.llmRuns === 'browser') {
    throw new StudyCommandError(`the study runs the language model in each participant's page (llmRuns: browser) for ${users.join(', ')}, but ${why}. Pull the model, or set llmRuns to auto or server.`);
  }
  return `The study runs the language model in each participant's page where it can (llmRuns: auto), but ${why}: every page will ask the server's model.`;
}

/**
 * A line saying whether a Hillmind server answers at the address, so one that no server
 * serves (another PORT, a proxy not yet set up) is caught now rather than by participants.
 */
async function serverNote(address: StudyAddress, serverAnswers: (base: string) => Promise<boolean>): Promise<string> {
  const base = address.baseUrl;
  if (await serverAnswers(base)) return `The server answers at ${base}.`;
  return address.given
    ? `No Hillmind server answers at ${base} from here yet: make sure it (or the proxy in front of it) serves this address before sharing the links.`
    : `No server answers at ${base} yet: start it with npm start in a shell with the same PORT and HOST, or pass --base-url with the address participants will use.`;
}

/** `list`: one line per study with its counts and address, the one stored at create unless --base-url names another. */
export function listStudiesCommand(store: StudyStore, options: { readonly dbPath: string; readonly address: StudyAddress }, print: PrintLine): void {
  const studies = store.listStudies();
  if (studies.length === 0) print(`No studies in ${options.dbPath}. Create one with npm run survey -- create`);
  for (const s of studies) {
    // The address stored at create, not this shell's PORT; older studies stored none.
    const stored = options.address.given ? null : s.baseUrl;
    const address = `${stored ?? options.address.baseUrl}/study/${s.id}`;
    const unsure = !options.address.given && stored === null ? '  (not stored with the study: from this shell\'s PORT and HOST)' : '';
    print(
      `${s.id.padEnd(24)} ${s.kind.padEnd(8)} ${s.status.padEnd(7)} ${String(s.participants).padStart(4)} started ${String(s.completed).padStart(4)} completed ${String(s.episodes).padStart(5)} episodes  ${s.config.teams.join(',')}  ${address}${unsure}`,
    );
  }
}

/** What export writes: a CSV table, or the whole study as JSON. */
export type ExportChoice = { readonly format: 'csv'; readonly table: CsvTable } | { readonly format: 'json'; readonly replays: boolean };

/** --format, --table and --replays checked, before any database is opened. */
export function parseExportChoice(format: string, table: string | undefined, replays: boolean): ExportChoice {
  if (format !== 'csv' && format !== 'json') throw new StudyCommandError('--format is csv or json');
  const csvTable = (table ?? 'answers') as CsvTable;
  if (!CSV_TABLES.includes(csvTable)) throw new StudyCommandError(`--table is one of ${CSV_TABLES.join(', ')}`);
  return format === 'csv' ? { format, table: csvTable } : { format, replays };
}

/** `export`: one study as CSV (one table) or JSON, written to `out`. */
export function exportStudyCommand(
  store: StudyStore,
  options: { readonly study: string; readonly choice: ExportChoice; readonly out: string; readonly dbPath: string },
  print: PrintLine,
): void {
  const { choice } = options;
  requireStudy(store, options.study, options.dbPath);
  const data = store.studyData(options.study);
  const text = choice.format === 'csv' ? studyCsv(data, choice.table) : studyJson(store, data, { replays: choice.replays });
  writeFileSync(options.out, text);
  print(`Wrote ${choice.format === 'csv' ? `the ${choice.table} table` : 'the study'} of '${options.study}' to ${options.out}`);
}

/** `analyze`: each named study (or every one) analysed into `out` (a folder per study when there are several), with a summary printed. */
export async function analyzeStudiesCommand(
  store: StudyStore,
  options: { readonly study?: string; readonly out: string; readonly dbPath: string },
  print: PrintLine,
): Promise<void> {
  const ids = options.study ? [options.study] : store.listStudies().map((s) => s.id);
  if (ids.length === 0) throw new StudyCommandError(`no studies in ${options.dbPath}`);
  for (const id of ids) {
    requireStudy(store, id, options.dbPath);
    const analysis = analyzeStudy(store.studyData(id));
    const dir = ids.length > 1 ? join(options.out, id) : options.out;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'analysis.json'), `${JSON.stringify(analysis, null, 2)}\n`);
    for (const [name, text] of await studyReportFiles(analysis)) writeFileSync(join(dir, name), text);
    const fc = analysis.forcedChoice;
    print(`${id}: ${analysis.participants.completed} of ${analysis.participants.started} participants completed`);
    if (fc.n > 0) print(`  forced choice ${fc.counts.map((c) => `${c.team} ${c.count}`).join(', ')}: ${forcedChoiceTestsLine(fc)}`);
    for (const w of analysis.winRates) if (w.rate) print(`  AI win rate ${w.team}: ${pct(w.rate.estimate)} of ${w.episodes}`);
    if (analysis.observer) for (const t of analysis.observer.types) if (t.rate) print(`  humanness ${t.type === 'human' ? 'people' : t.type}: ${pct(t.rate.estimate)} of ${t.judgements}`);
    print(`  reports: ${join(dir, 'report.md')}, ${join(dir, 'report.html')}`);
  }
}

/** `close` and `reopen`: whether the study takes new participants. */
export function setStudyOpenCommand(store: StudyStore, options: { readonly study: string; readonly open: boolean; readonly dbPath: string }, print: PrintLine): void {
  requireStudy(store, options.study, options.dbPath);
  store.setStudyStatus(options.study, options.open ? 'open' : 'closed');
  print(`Study '${options.study}' is ${options.open ? 'open' : 'closed to new participants'}.`);
}
