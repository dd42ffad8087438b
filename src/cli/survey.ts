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
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CSV_TABLES,
  DEFAULT_STUDY_DB,
  type CsvTable,
  type StudyConfigInput,
  StudyStore,
  analyzeStudy,
  consentPlaceholders,
  createStudy,
  forcedChoiceTestsLine,
  parseStudyConfig,
  studyCsv,
  studyDbPath,
  studyJson,
  studyReportFiles,
  teamsInPlay,
  textDisagreements,
} from '../survey';
import { pct } from '../report/format';
import { countOf, parseJsonText } from '../sim';
import { type Platform, teamAvailability } from '../teams';
import { languageModelNote } from '../survey/languageModelNote';
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
function studyBaseUrl(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag !== undefined) return flag.replace(/\/+$/, '');
  const host = env.HOST && !LOCAL_HOSTS.has(env.HOST) ? env.HOST : 'localhost';
  return `http://${host.includes(':') ? `[${host}]` : host}:${env.PORT ?? SERVE.port}`;
}

/**
 * A line saying whether a Hillmind server answers at `base`, so an address that no server
 * serves (another PORT, a proxy not yet set up) is caught now rather than by participants.
 */
async function serverNote(base: string, flagGiven: boolean): Promise<string> {
  try {
    const res = await fetch(`${base}/api/health`, { signal: AbortSignal.timeout(1500) });
    const body = (await res.json().catch(() => null)) as { service?: string } | null;
    if (res.ok && body?.service === 'hillmind') return `The server answers at ${base}.`;
  } catch {
    // nothing there (yet)
  }
  return flagGiven
    ? `No Hillmind server answers at ${base} from here yet: make sure it (or the proxy in front of it) serves this address before sharing the links.`
    : `No server answers at ${base} yet: start it with npm start in a shell with the same PORT and HOST, or pass --base-url with the address participants will use.`;
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

function openExisting(path: string): StudyStore {
  if (!existsSync(path)) throw new UsageError(`no study database at ${path} (create a study first, or pass --db)`);
  return StudyStore.open(path);
}

runCli(async () => {
  const { values, positionals } = parseCommandLine(OPTIONS, USAGE);
  const command = positionals[0];
  if (positionals.length > 1) throw new UsageError(`unexpected arguments: ${positionals.slice(1).join(' ')}\n\n${USAGE}`);
  const dbPath = values.db ?? studyDbPath(process.env);

  switch (command) {
    case 'create': {
      let input: StudyConfigInput = {};
      if (values.config) {
        let text: string;
        try {
          text = readFileSync(values.config, 'utf8');
        } catch (err) {
          throw new UsageError(`cannot read --config ${values.config}: ${(err as Error).message}`);
        }
        try {
          input = parseJsonText(text, values.config) as StudyConfigInput;
        } catch (err) {
          throw new UsageError((err as Error).message);
        }
      }
      const teams = values.teams?.split(',').map((t) => t.trim()).filter(Boolean);
      const config = parseStudyConfig({ ...input, ...(teams ? { teams } : {}), ...(values.id ? { id: values.id } : {}) }, values.config ?? 'the study config');
      // The teams are checked, the bots' clips played and the model noted on one platform, closed after.
      const platform = nodePlatform(commandPlatformSpec());
      try {
        const missing = await unavailableTeams(teamsInPlay(config), platform);
        if (missing.length > 0) {
          const lines = missing.map((m) => `  ${m.id}: ${m.reason}`);
          throw new UsageError(
            `these teams are not available on this machine:\n${lines.join('\n')}\n\nTrain the models or configure the LLM, or compare teams that are, e.g. --teams bt-scripted,heuristic,random`,
          );
        }
        const store = StudyStore.open(dbPath);
        try {
          const base = studyBaseUrl(values['base-url'], process.env);
          const { study, adminToken, botClips } = await createStudy(store, config, platform, { baseUrl: base });
          const url = `${base}/study/${study.id}`;
          console.log(`Created ${study.kind} study '${study.id}' in ${dbPath}: ${study.config.teams.join(', ')}${study.kind === 'play' ? `, ${countOf(study.config.episodesPerBlock, 'episode')} per block` : `, ${countOf(botClips, 'bot clip')}`}.`);
          console.log(`\nParticipants: ${url}`);
          console.log(`  (Prolific: ${url}?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}})`);
          console.log(`Progress:     ${url}/admin`);
          console.log(`Admin token:  ${adminToken}   (shown once; the progress page and API ask for it)`);
          if (study.config.completion.code) console.log(`Completion code: ${study.config.completion.code}`);
          if (study.config.completion.redirectUrl) console.log(`Completion redirect: ${study.config.completion.redirectUrl}`);
          const placeholders = consentPlaceholders(study.config);
          if (placeholders.length > 0) {
            console.log(`\nThe consent page still says to fill in ${placeholders.map((k) => `"${k}"`).join(' and ')}: set ${placeholders.length > 1 ? 'them' : 'it'} in the config before inviting participants.`);
          }
          const disagreements = textDisagreements(study.config);
          if (disagreements.length > 0) {
            console.log(`\nThe study's own text disagrees with its settings: correct the config before inviting participants.`);
            for (const d of disagreements) console.log(`  ${d.field}: "${d.sentence}" ${d.message}.`);
          }
          // Where npm run llm:exam writes its reports unless told otherwise.
          const modelNote = await languageModelNote(teamsInPlay(study.config), platform, join('results', 'exam'));
          if (modelNote.length > 0) console.log(`\n${modelNote.join('\n')}`);
          console.log(`\n${await serverNote(base, values['base-url'] !== undefined)}`);
          console.log('npm start serves it from the same database (HILLMIND_STUDY_DB if you moved it); PORT and HOST say where it listens.');
        } finally {
          store.close();
        }
      } finally {
        await platform.close();
      }
      return;
    }
    case 'list': {
      const store = openExisting(dbPath);
      try {
        const studies = store.listStudies();
        if (studies.length === 0) console.log(`No studies in ${dbPath}. Create one with npm run survey -- create`);
        for (const s of studies) {
          // The address stored at create, not this shell's PORT; older studies stored none.
          const stored = values['base-url'] === undefined ? s.baseUrl : null;
          const address = `${stored ?? studyBaseUrl(values['base-url'], process.env)}/study/${s.id}`;
          const unsure = values['base-url'] === undefined && stored === null ? '  (not stored with the study: from this shell\'s PORT and HOST)' : '';
          console.log(
            `${s.id.padEnd(24)} ${s.kind.padEnd(8)} ${s.status.padEnd(7)} ${String(s.participants).padStart(4)} started ${String(s.completed).padStart(4)} completed ${String(s.episodes).padStart(5)} episodes  ${s.config.teams.join(',')}  ${address}${unsure}`,
          );
        }
      } finally {
        store.close();
      }
      return;
    }
    case 'export': {
      if (!values.study || !values.format || !values.out) throw new UsageError(`export needs --study, --format and --out\n\n${USAGE}`);
      if (values.format !== 'csv' && values.format !== 'json') throw new UsageError('--format is csv or json');
      const table = (values.table ?? 'answers') as CsvTable;
      if (!CSV_TABLES.includes(table)) throw new UsageError(`--table is one of ${CSV_TABLES.join(', ')}`);
      const store = openExisting(dbPath);
      try {
        if (!store.getStudy(values.study)) throw new UsageError(`no study '${values.study}' in ${dbPath}`);
        const data = store.studyData(values.study);
        const text = values.format === 'csv' ? studyCsv(data, table) : studyJson(store, data, { replays: Boolean(values.replays) });
        writeFileSync(values.out, text);
        console.log(`Wrote ${values.format === 'csv' ? `the ${table} table` : 'the study'} of '${values.study}' to ${values.out}`);
      } finally {
        store.close();
      }
      return;
    }
    case 'analyze': {
      if (!values.out) throw new UsageError(`analyze needs --out <dir>\n\n${USAGE}`);
      const store = openExisting(dbPath);
      try {
        const ids = values.study ? [values.study] : store.listStudies().map((s) => s.id);
        if (ids.length === 0) throw new UsageError(`no studies in ${dbPath}`);
        for (const id of ids) {
          if (!store.getStudy(id)) throw new UsageError(`no study '${id}' in ${dbPath}`);
          const analysis = analyzeStudy(store.studyData(id));
          const dir = ids.length > 1 ? join(values.out, id) : values.out;
          mkdirSync(dir, { recursive: true });
          writeFileSync(join(dir, 'analysis.json'), `${JSON.stringify(analysis, null, 2)}\n`);
          for (const [name, text] of await studyReportFiles(analysis)) writeFileSync(join(dir, name), text);
          const fc = analysis.forcedChoice;
          console.log(`${id}: ${analysis.participants.completed} of ${analysis.participants.started} participants completed`);
          if (fc.n > 0) console.log(`  forced choice ${fc.counts.map((c) => `${c.team} ${c.count}`).join(', ')}: ${forcedChoiceTestsLine(fc)}`);
          for (const w of analysis.winRates) if (w.rate) console.log(`  AI win rate ${w.team}: ${pct(w.rate.estimate)} of ${w.episodes}`);
          if (analysis.observer) for (const t of analysis.observer.types) if (t.rate) console.log(`  humanness ${t.type === 'human' ? 'people' : t.type}: ${pct(t.rate.estimate)} of ${t.judgements}`);
          console.log(`  reports: ${join(dir, 'report.md')}, ${join(dir, 'report.html')}`);
        }
      } finally {
        store.close();
      }
      return;
    }
    case 'close':
    case 'reopen': {
      if (!values.study) throw new UsageError(`${command} needs --study <id>`);
      const store = openExisting(dbPath);
      try {
        if (!store.getStudy(values.study)) throw new UsageError(`no study '${values.study}' in ${dbPath}`);
        store.setStudyStatus(values.study, command === 'close' ? 'closed' : 'open');
        console.log(`Study '${values.study}' is ${command === 'close' ? 'closed to new participants' : 'open'}.`);
      } finally {
        store.close();
      }
      return;
    }
    default:
      throw new UsageError(command ? `unknown command '${command}'\n\n${USAGE}` : USAGE);
  }
});
