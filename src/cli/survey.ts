/**
 * npm run survey -- <command>: the researcher's side of user studies.
 *
 *   create  [--config <file.json>] [--teams a,b,c] [--id <id>] [--db <file>] [--base-url <url>]
 *   list    [--db <file>] [--base-url <url>]   (each study's address as stored at create)
 *   export  --study <id> --format csv|json --out <file> [--table answers|participants|episodes|judgements] [--replays] [--db <file>]
 *   analyze [--db <file>] [--study <id>] --out <dir>
 *   close | reopen --study <id> [--db <file>]
 *
 * The database is HILLMIND_STUDY_DB (default DEFAULT_STUDY_DB); the server (npm start)
 * reads the same file. The address create prints, and stores with the study for list, is
 * --base-url, else where `npm start` listens with this shell's PORT and HOST (as the server
 * itself prints it), checked against a running server.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CSV_TABLES, DEFAULT_STUDY_DB, type StudyConfigInput, StudyStore, parseStudyConfig, studyDbPath } from '../survey';
import {
  type StudyAddress,
  StudyCommandError,
  analyzeStudiesCommand,
  createStudyCommand,
  exportStudyCommand,
  hillmindServerAnswers,
  listStudiesCommand,
  openStudyDatabase,
  parseExportChoice,
  setStudyOpenCommand,
} from '../survey/commands';
import { llmSettingsOf } from '../llm';
import { lendableFiles } from '../llm/servedFiles';
import { parseJsonText } from '../sim';
import { nodePlatform } from '../teams/nodePlatform';
import { UsageError, parseCommandLine, runCli } from './args';
import { SERVE } from './defaults';
import { commandPlatformSpec } from './platform';

const USAGE = `usage: npm run survey -- <command> [options]
  create  [--config <file.json>] [--teams a,b,c] [--id <id>] [--db <file>] [--base-url <url>]
  list    [--db <file>] [--base-url <url>]
  export  --study <id> --format csv|json --out <file> [--table ${CSV_TABLES.join('|')}] [--replays] [--db <file>]
  analyze [--db <file>] [--study <id>] --out <dir>
  close | reopen --study <id> [--db <file>]
The database is --db, else HILLMIND_STUDY_DB (default ${DEFAULT_STUDY_DB}).
The participants' address is --base-url (the address they reach, e.g. https://study.example.org
  behind a TLS proxy), else http://localhost:PORT as npm start serves it with this shell's PORT
  (default ${SERVE.port}) and HOST. create stores it with the study; list prints the stored one.`;

const OPTIONS = {
  config: { type: 'string' },
  teams: { type: 'string' },
  id: { type: 'string' },
  db: { type: 'string' },
  'base-url': { type: 'string' },
  study: { type: 'string' },
  format: { type: 'string' },
  out: { type: 'string' },
  table: { type: 'string' },
  replays: { type: 'boolean' },
} as const;

/** Hosts a browser on this machine reaches as localhost (the server prints them so too). */
const LOCAL_HOSTS = new Set(['127.0.0.1', '::1', '0.0.0.0', '::', 'localhost']);

/** Where participants find the server: --base-url, else where `npm start` listens with this environment. */
function studyAddress(flag: string | undefined, env: NodeJS.ProcessEnv): StudyAddress {
  if (flag !== undefined) return { baseUrl: flag.replace(/\/+$/, ''), given: true };
  const host = env.HOST && !LOCAL_HOSTS.has(env.HOST) ? env.HOST : 'localhost';
  return { baseUrl: `http://${host.includes(':') ? `[${host}]` : host}:${env.PORT ?? SERVE.port}`, given: false };
}

/** The --config file's contents, or the defaults when none is named. */
function readConfigInput(path: string | undefined): StudyConfigInput {
  if (!path) return {};
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read --config ${path}: ${(err as Error).message}`);
  }
  try {
    return parseJsonText(text, path) as StudyConfigInput;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Runs a command on the existing database at `dbPath`, closing it after. */
async function onExistingDatabase<T>(dbPath: string, command: (store: StudyStore) => T | Promise<T>): Promise<T> {
  const store = openStudyDatabase(dbPath);
  try {
    return await command(store);
  } finally {
    store.close();
  }
}

const print = (line: string): void => console.log(line);

async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine(OPTIONS, USAGE);
  const command = positionals[0];
  if (positionals.length > 1) throw new UsageError(`unexpected arguments: ${positionals.slice(1).join(' ')}\n\n${USAGE}`);
  const dbPath = values.db ?? studyDbPath(process.env);
  const address = studyAddress(values['base-url'], process.env);

  switch (command) {
    case 'create': {
      const input = readConfigInput(values.config);
      const teams = values.teams?.split(',').map((t) => t.trim()).filter(Boolean);
      const config = parseStudyConfig({ ...input, ...(teams ? { teams } : {}), ...(values.id ? { id: values.id } : {}) }, values.config ?? 'the study config');
      // The teams are checked, the bots' clips played and the model noted on one platform, closed after.
      const platform = nodePlatform(commandPlatformSpec());
      try {
        await createStudyCommand(
          // examDir: where npm run llm:exam writes its reports unless told otherwise.
          { config, dbPath, address, examDir: join('results', 'exam') },
          { platform, openStore: () => StudyStore.open(dbPath), serverAnswers: hillmindServerAnswers, pageModelFiles: lendableFiles(llmSettingsOf(platform.spec.llm)).length },
          print,
        );
      } finally {
        await platform.close();
      }
      return;
    }
    case 'list':
      return onExistingDatabase(dbPath, (store) => listStudiesCommand(store, { dbPath, address }, print));
    case 'export': {
      const { study, format, out } = values;
      if (!study || !format || !out) throw new UsageError(`export needs --study, --format and --out\n\n${USAGE}`);
      const choice = parseExportChoice(format, values.table, Boolean(values.replays));
      return onExistingDatabase(dbPath, (store) => exportStudyCommand(store, { study, choice, out, dbPath }, print));
    }
    case 'analyze': {
      const out = values.out;
      if (!out) throw new UsageError(`analyze needs --out <dir>\n\n${USAGE}`);
      return onExistingDatabase(dbPath, (store) => analyzeStudiesCommand(store, { study: values.study, out, dbPath }, print));
    }
    case 'close':
    case 'reopen': {
      const study = values.study;
      if (!study) throw new UsageError(`${command} needs --study <id>`);
      return onExistingDatabase(dbPath, (store) => setStudyOpenCommand(store, { study, open: command === 'reopen', dbPath }, print));
    }
    default:
      throw new UsageError(command ? `unknown command '${command}'\n\n${USAGE}` : USAGE);
  }
}

runCli(() =>
  main().catch((err: unknown) => {
    // The commands' mistakes in what was asked are usage errors here (exit 2), as the flags' are.
    throw err instanceof StudyCommandError ? new UsageError(err.message) : err;
  }),
);
