/**
 * Study storage: one SQLite file (better-sqlite3, WAL), written as participants go, so a
 * crash or a reload loses at most the episode being played. The schema, readable without
 * the program:
 *
 *   meta(key PRIMARY KEY, value)                      schema_version = 4
 *   studies(id PRIMARY KEY, kind 'play'|'observe', title, config JSON (validated, with
 *           defaults filled), admin_token_hash (sha256 hex of the admin token), status
 *           'open'|'closed', created_at, base_url (where participants reach the server,
 *           as given at creation; null for studies made before version 4))
 *   participants(id INTEGER PRIMARY KEY, study_id -> studies, token_hash UNIQUE (sha256 hex
 *           of the session token; the token itself lives only in the participant's
 *           browser), number (1, 2, ... within the study), order_row (row of the Williams
 *           design), plan JSON {order: [team ids in block order], clips?: [episode ids]},
 *           external JSON (PROLIFIC_PID, STUDY_ID, SESSION_ID, workerId, assignmentId,
 *           hitId as given in the URL), user_agent, consented_at, instructions_at,
 *           practice_at, practice_skipped 0|1, started_at, updated_at, completed_at)
 *   answers(id INTEGER PRIMARY KEY, participant_id -> participants, block (position in the
 *           participant's order; -1 for end-of-study answers), team (the team id the answer
 *           is about, or the chosen team for the forced choice), label (what the
 *           participant saw, e.g. "Team 2"), kind 'likert'|'open'|'choice'|'reason'|
 *           'background', item (question id), value_num, value_text (free text exactly as
 *           typed), created_at; UNIQUE(participant_id, block, kind, item))
 *   episodes(id INTEGER PRIMARY KEY, study_id, participant_id (NULL for bot-versus-bot
 *           clips), block (-1 practice, -2 bot clip), episode, opponent (red team id),
 *           teammate (blue AI id, "person", or the blue team of a bot clip), seed, outcome
 *           'blue'|'red'|'draw'|'unfinished' (blue is the participant's side; outcome, ticks, duration
 *           and progress are the server's re-simulation's, never the page's), ticks, duration_seconds,
 *           progress_blue, progress_red, human_agents JSON [agent ids people played],
 *           agent_controllers JSON [per agent id: "human" or a team id], summary JSON (the
 *           match summary of the server's re-simulation, with verification: {ok,
 *           problems, sides}), replay JSON (a hillmind-replay file), replay_ok 1 when the
 *           replay verified (every claim held, AI actions followed their decisions, the
 *           page's summary agreed; 0 rows are left out of the analysis, never dropped),
 *           created_at, problem (a 0 row's first problem, in words), diverged_by_tick (when
 *           the re-simulation did not reach the file's final state: the tick at which they
 *           were compared, by which they had parted); UNIQUE(participant_id, block, episode)).
 *           outcome is 'unfinished' when the file claims an end the re-simulation did not
 *           reach. (problem, diverged_by_tick and 'unfinished' came with version 3.)
 *   judgements(id INTEGER PRIMARY KEY, participant_id -> participants, episode_id ->
 *           episodes, clip (position in the participant's list), agent, truth ("human" or
 *           the team id that played the agent), judged_human 0|1, created_at;
 *           UNIQUE(participant_id, episode_id, agent))
 *   attempts(id INTEGER PRIMARY KEY, participant_id -> participants, block, episode (the
 *           episode slot, as in episodes), attempt (1, 2, ... for that slot), seed, status
 *           'playing'|'finished'|'abandoned', started_at, ended_at, ticks (how far an
 *           abandoned attempt got, when the page said), replay (its replay up to there, when
 *           the page sent it); UNIQUE(participant_id, block, episode, attempt)). One row per
 *           start of an episode: a reload or a closed tab leaves it 'abandoned', so every
 *           restart is on record beside the attempt it replaced. (Added in version 2; older
 *           files gain the table when opened.)
 *
 * Times are ISO 8601 UTC strings. Files this build writes carry SQLite's application id
 * STUDY_APPLICATION_ID ("HMND"); a file with other tables, another id or a newer version
 * is refused before anything is written to it.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { type StudyConfig, parseStudyConfig } from './config';
import { nextRow, williamsDesign } from './latin';

export const SCHEMA_VERSION = 4;

/** Where studies live unless --db or HILLMIND_STUDY_DB says otherwise. */
export const DEFAULT_STUDY_DB = 'data/studies.sqlite';

/** The database an environment names (the entry point passes its own): HILLMIND_STUDY_DB, or the default. */
export function studyDbPath(env: Readonly<Record<string, string | undefined>>): string {
  return env.HILLMIND_STUDY_DB || DEFAULT_STUDY_DB;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS studies (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('play', 'observe')),
  title TEXT NOT NULL,
  config TEXT NOT NULL,
  admin_token_hash TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS participants (
  id INTEGER PRIMARY KEY,
  study_id TEXT NOT NULL REFERENCES studies(id),
  token_hash TEXT NOT NULL UNIQUE,
  number INTEGER NOT NULL,
  order_row INTEGER NOT NULL,
  plan TEXT NOT NULL,
  external TEXT NOT NULL,
  user_agent TEXT,
  consented_at TEXT,
  instructions_at TEXT,
  practice_at TEXT,
  practice_skipped INTEGER NOT NULL DEFAULT 0,
  started_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  completed_at TEXT,
  UNIQUE (study_id, number)
);
CREATE INDEX IF NOT EXISTS participants_study ON participants(study_id);
CREATE TABLE IF NOT EXISTS answers (
  id INTEGER PRIMARY KEY,
  participant_id INTEGER NOT NULL REFERENCES participants(id),
  block INTEGER NOT NULL,
  team TEXT,
  label TEXT,
  kind TEXT NOT NULL CHECK (kind IN ('likert', 'open', 'choice', 'reason', 'background')),
  item TEXT NOT NULL,
  value_num REAL,
  value_text TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (participant_id, block, kind, item)
);
CREATE INDEX IF NOT EXISTS answers_participant ON answers(participant_id);
CREATE TABLE IF NOT EXISTS episodes (
  id INTEGER PRIMARY KEY,
  study_id TEXT NOT NULL REFERENCES studies(id),
  participant_id INTEGER REFERENCES participants(id),
  block INTEGER NOT NULL,
  episode INTEGER NOT NULL,
  opponent TEXT NOT NULL,
  teammate TEXT NOT NULL,
  seed INTEGER NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('blue', 'red', 'draw')),
  ticks INTEGER NOT NULL,
  duration_seconds REAL NOT NULL,
  progress_blue REAL NOT NULL,
  progress_red REAL NOT NULL,
  human_agents TEXT NOT NULL,
  agent_controllers TEXT NOT NULL,
  summary TEXT NOT NULL,
  replay TEXT NOT NULL,
  replay_ok INTEGER NOT NULL CHECK (replay_ok IN (0, 1)),
  created_at TEXT NOT NULL,
  UNIQUE (participant_id, block, episode)
);
CREATE INDEX IF NOT EXISTS episodes_study ON episodes(study_id);
CREATE INDEX IF NOT EXISTS episodes_participant ON episodes(participant_id);
CREATE TABLE IF NOT EXISTS judgements (
  id INTEGER PRIMARY KEY,
  participant_id INTEGER NOT NULL REFERENCES participants(id),
  episode_id INTEGER NOT NULL REFERENCES episodes(id),
  clip INTEGER NOT NULL,
  agent INTEGER NOT NULL,
  truth TEXT NOT NULL,
  judged_human INTEGER NOT NULL CHECK (judged_human IN (0, 1)),
  created_at TEXT NOT NULL,
  UNIQUE (participant_id, episode_id, agent)
);
CREATE INDEX IF NOT EXISTS judgements_participant ON judgements(participant_id);
`;

/** What each schema version adds to the one before it; opening an older file runs the missing steps. */
const MIGRATIONS: readonly { readonly to: number; readonly sql: string }[] = [
  {
    to: 2,
    sql: `
CREATE TABLE IF NOT EXISTS attempts (
  id INTEGER PRIMARY KEY,
  participant_id INTEGER NOT NULL REFERENCES participants(id),
  block INTEGER NOT NULL,
  episode INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  seed INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('playing', 'finished', 'abandoned')),
  started_at TEXT NOT NULL,
  ended_at TEXT,
  ticks INTEGER,
  replay TEXT,
  UNIQUE (participant_id, block, episode, attempt)
);
CREATE INDEX IF NOT EXISTS attempts_participant ON attempts(participant_id);
`,
  },
  {
    // An episode whose replay does not re-simulate is kept: its outcome may be 'unfinished'
    // (the re-simulation did not reach the end the file claims), with its first problem and
    // the tick by which the re-simulation had parted from the file. SQLite cannot change a
    // CHECK, so the table is made again (foreign keys are off while migrating).
    to: 3,
    sql: `
CREATE TABLE episodes_v3 (
  id INTEGER PRIMARY KEY,
  study_id TEXT NOT NULL REFERENCES studies(id),
  participant_id INTEGER REFERENCES participants(id),
  block INTEGER NOT NULL,
  episode INTEGER NOT NULL,
  opponent TEXT NOT NULL,
  teammate TEXT NOT NULL,
  seed INTEGER NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('blue', 'red', 'draw', 'unfinished')),
  ticks INTEGER NOT NULL,
  duration_seconds REAL NOT NULL,
  progress_blue REAL NOT NULL,
  progress_red REAL NOT NULL,
  human_agents TEXT NOT NULL,
  agent_controllers TEXT NOT NULL,
  summary TEXT NOT NULL,
  replay TEXT NOT NULL,
  replay_ok INTEGER NOT NULL CHECK (replay_ok IN (0, 1)),
  created_at TEXT NOT NULL,
  problem TEXT,
  diverged_by_tick INTEGER,
  UNIQUE (participant_id, block, episode)
);
INSERT INTO episodes_v3 (id, study_id, participant_id, block, episode, opponent, teammate, seed, outcome, ticks, duration_seconds,
    progress_blue, progress_red, human_agents, agent_controllers, summary, replay, replay_ok, created_at)
  SELECT id, study_id, participant_id, block, episode, opponent, teammate, seed, outcome, ticks, duration_seconds,
    progress_blue, progress_red, human_agents, agent_controllers, summary, replay, replay_ok, created_at FROM episodes;
DROP TABLE episodes;
ALTER TABLE episodes_v3 RENAME TO episodes;
CREATE INDEX IF NOT EXISTS episodes_study ON episodes(study_id);
CREATE INDEX IF NOT EXISTS episodes_participant ON episodes(participant_id);
`,
  },
  {
    // Where participants reach the study, as given when it was created, so a listing made
    // from another shell (another PORT, no proxy settings) still prints the address that
    // answers. Null for studies made before version 4.
    to: 4,
    sql: `ALTER TABLE studies ADD COLUMN base_url TEXT;`,
  },
];

/**
 * SQLite's application id (the file header's `PRAGMA application_id`) of a study database:
 * "HMND". Files this build creates or migrates carry it; older ones are known by their tables.
 */
export const STUDY_APPLICATION_ID = 0x484d4e44;

/** Every table a study database of any version has or had. */
const STUDY_TABLES = new Set(['meta', 'studies', 'participants', 'answers', 'episodes', 'judgements', 'attempts']);

/** A file the store will not use: another program's, a newer build's, or no SQLite database. Nothing was written to it. */
export class UnusableStudyDatabase extends Error {}

/**
 * Which study database `db` is, read before anything is written: a new (empty) file, or a
 * Hillmind one at the version it names. Another application's file (tables not Hillmind's,
 * or another application id) and a newer build's schema are refused untouched.
 */
function identify(db: Database.Database, path: string): { readonly version: number | null } {
  let tables: string[];
  let applicationId: number;
  try {
    tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[]).map((t) => t.name);
    applicationId = db.pragma('application_id', { simple: true }) as number;
  } catch (err) {
    if ((err as { code?: unknown }).code === 'SQLITE_NOTADB') throw new UnusableStudyDatabase(`${path} is not a SQLite database: give the study database another path (HILLMIND_STUDY_DB or --db)`);
    throw err;
  }
  if (tables.length === 0 && applicationId === 0) return { version: null };
  const foreign = tables.filter((t) => !STUDY_TABLES.has(t));
  if ((applicationId !== 0 && applicationId !== STUDY_APPLICATION_ID) || foreign.length > 0 || !tables.includes('meta')) {
    const what = foreign.length > 0 ? `it has tables of its own (${foreign.slice(0, 5).join(', ')})` : applicationId !== 0 && applicationId !== STUDY_APPLICATION_ID ? `its application id is ${applicationId}` : 'it has no meta table';
    throw new UnusableStudyDatabase(
      `${path} is not a Hillmind study database (${what}); it was left as it is: give the study database another path (HILLMIND_STUDY_DB or --db)`,
    );
  }
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get('schema_version') as { value: string } | undefined;
  const version = row ? Number(row.value) : 1;
  if (!Number.isInteger(version) || version < 1 || version > SCHEMA_VERSION) {
    const by = Number.isInteger(version) && version > SCHEMA_VERSION ? 'it was written by a newer Hillmind: open it with that version' : 'the file is damaged';
    throw new UnusableStudyDatabase(`${path} has study schema version ${row?.value}, and this build reads versions 1 to ${SCHEMA_VERSION}; ${by} (the file was left as it is)`);
  }
  return { version };
}

/**
 * The schema as version 1 wrote it, then every migration: a new file ends at SCHEMA_VERSION.
 * `from` is what identify() read: null for a new file.
 */
function migrate(db: Database.Database, path: string, from: number | null): void {
  // Up to date: nothing is written, so a database on a read-only or full disk still opens for reading.
  if (from === SCHEMA_VERSION) return;
  db.exec(SCHEMA);
  // A table made again must not trip the keys that point at it (SQLite's own recipe); checked before the commit.
  db.pragma('foreign_keys = OFF');
  try {
    db.transaction(() => {
      for (const m of MIGRATIONS) if (m.to > (from ?? 1)) db.exec(m.sql);
      const broken = db.pragma('foreign_key_check') as unknown[];
      if (broken.length > 0) throw new Error(`${path}: migrating to study schema version ${SCHEMA_VERSION} broke ${broken.length} references`);
      db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run('schema_version', String(SCHEMA_VERSION));
      db.pragma(`application_id = ${STUDY_APPLICATION_ID}`);
    })();
  } finally {
    db.pragma('foreign_keys = ON');
  }
}

export type AnswerKind = 'likert' | 'open' | 'choice' | 'reason' | 'background';

export interface StudyRecord {
  readonly id: string;
  readonly kind: 'play' | 'observe';
  readonly title: string;
  readonly config: StudyConfig;
  readonly status: 'open' | 'closed';
  readonly createdAt: string;
  /** The address participants reach the server at (no trailing slash), as given at creation; null for studies made before it was stored. */
  readonly baseUrl: string | null;
}

export interface StudyListing extends StudyRecord {
  readonly participants: number;
  readonly completed: number;
  readonly episodes: number;
}

export interface ParticipantPlan {
  /** Team ids in the order this participant plays them. */
  readonly order: readonly string[];
  /** Observe studies: the episode ids this participant judges, in order. */
  readonly clips?: readonly number[];
}

export interface ParticipantRecord {
  readonly id: number;
  readonly studyId: string;
  readonly number: number;
  readonly orderRow: number;
  readonly plan: ParticipantPlan;
  readonly external: Readonly<Record<string, string>>;
  readonly userAgent: string | null;
  readonly consentedAt: string | null;
  readonly instructionsAt: string | null;
  readonly practiceAt: string | null;
  readonly practiceSkipped: boolean;
  readonly startedAt: string;
  readonly updatedAt: string;
  readonly completedAt: string | null;
}

export interface AnswerRecord {
  readonly id: number;
  readonly participantId: number;
  readonly block: number;
  readonly team: string | null;
  readonly label: string | null;
  readonly kind: AnswerKind;
  readonly item: string;
  readonly valueNum: number | null;
  readonly valueText: string | null;
  readonly createdAt: string;
}

export type NewAnswer = Omit<AnswerRecord, 'id' | 'participantId' | 'createdAt'>;

/** A row of the episodes table: one study episode, played by a participant or between bots (the tournament's are EpisodeRecord). */
export interface StoredEpisode {
  readonly id: number;
  readonly studyId: string;
  readonly participantId: number | null;
  readonly block: number;
  readonly episode: number;
  readonly opponent: string;
  readonly teammate: string;
  readonly seed: number;
  /** 'unfinished' only for a flagged episode whose re-simulation did not reach the end its file claims. */
  readonly outcome: 'blue' | 'red' | 'draw' | 'unfinished';
  readonly ticks: number;
  readonly durationSeconds: number;
  readonly progressBlue: number;
  readonly progressRed: number;
  readonly humanAgents: readonly number[];
  readonly agentControllers: readonly string[];
  readonly replayOk: boolean;
  /** Why the replay did not verify (its first problem); null when it did. */
  readonly problem: string | null;
  /** When the re-simulation did not reach the file's final state: the tick by which they had parted. */
  readonly divergedByTick: number | null;
  readonly createdAt: string;
}

export type NewEpisode = Omit<StoredEpisode, 'id' | 'createdAt' | 'problem' | 'divergedByTick'> & {
  readonly problem?: string | null;
  readonly divergedByTick?: number | null;
  /** The match summary (stored as JSON). */
  readonly summary: unknown;
  /** The replay file as JSON text. */
  readonly replay: string;
};

export interface JudgementRecord {
  readonly id: number;
  readonly participantId: number;
  readonly episodeId: number;
  readonly clip: number;
  readonly agent: number;
  readonly truth: string;
  readonly judgedHuman: boolean;
  readonly createdAt: string;
}

export type AttemptStatus = 'playing' | 'finished' | 'abandoned';

/** One start of an episode slot by a participant (see the attempts table). */
export interface AttemptRecord {
  readonly id: number;
  readonly participantId: number;
  readonly block: number;
  readonly episode: number;
  /** 1 for the first start of the slot, 2 for the first restart, ... */
  readonly attempt: number;
  readonly seed: number;
  readonly status: AttemptStatus;
  readonly startedAt: string;
  readonly endedAt: string | null;
  /** Ticks an abandoned attempt reached, when the page said. */
  readonly ticks: number | null;
}

/** Everything of one study, for analysis and export. */
export interface StudyData {
  readonly study: StudyRecord;
  readonly participants: readonly ParticipantRecord[];
  readonly answers: readonly AnswerRecord[];
  readonly episodes: readonly StoredEpisode[];
  readonly judgements: readonly JudgementRecord[];
  readonly attempts: readonly AttemptRecord[];
}

/** A random secret (256 bits, base64url) and the hash the database keeps of it. */
export function newToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

type Row = Record<string, unknown>;
const str = (v: unknown) => (v === null || v === undefined ? null : String(v));

function toStudy(row: Row): StudyRecord {
  return {
    id: String(row.id),
    kind: row.kind as 'play' | 'observe',
    title: String(row.title),
    config: parseStudyConfig(JSON.parse(String(row.config)), `the stored config of study ${String(row.id)}`),
    status: row.status as 'open' | 'closed',
    createdAt: String(row.created_at),
    baseUrl: str(row.base_url),
  };
}

function toParticipant(row: Row): ParticipantRecord {
  return {
    id: Number(row.id),
    studyId: String(row.study_id),
    number: Number(row.number),
    orderRow: Number(row.order_row),
    plan: JSON.parse(String(row.plan)) as ParticipantPlan,
    external: JSON.parse(String(row.external)) as Record<string, string>,
    userAgent: str(row.user_agent),
    consentedAt: str(row.consented_at),
    instructionsAt: str(row.instructions_at),
    practiceAt: str(row.practice_at),
    practiceSkipped: row.practice_skipped === 1,
    startedAt: String(row.started_at),
    updatedAt: String(row.updated_at),
    completedAt: str(row.completed_at),
  };
}

function toAnswer(row: Row): AnswerRecord {
  return {
    id: Number(row.id),
    participantId: Number(row.participant_id),
    block: Number(row.block),
    team: str(row.team),
    label: str(row.label),
    kind: row.kind as AnswerKind,
    item: String(row.item),
    valueNum: row.value_num === null ? null : Number(row.value_num),
    valueText: str(row.value_text),
    createdAt: String(row.created_at),
  };
}

const EPISODE_COLUMNS =
  'id, study_id, participant_id, block, episode, opponent, teammate, seed, outcome, ticks, duration_seconds, progress_blue, progress_red, human_agents, agent_controllers, replay_ok, problem, diverged_by_tick, created_at';

function toEpisode(row: Row): StoredEpisode {
  return {
    id: Number(row.id),
    studyId: String(row.study_id),
    participantId: row.participant_id === null ? null : Number(row.participant_id),
    block: Number(row.block),
    episode: Number(row.episode),
    opponent: String(row.opponent),
    teammate: String(row.teammate),
    seed: Number(row.seed),
    outcome: row.outcome as StoredEpisode['outcome'],
    ticks: Number(row.ticks),
    durationSeconds: Number(row.duration_seconds),
    progressBlue: Number(row.progress_blue),
    progressRed: Number(row.progress_red),
    humanAgents: JSON.parse(String(row.human_agents)) as number[],
    agentControllers: JSON.parse(String(row.agent_controllers)) as string[],
    replayOk: row.replay_ok === 1,
    problem: str(row.problem),
    divergedByTick: row.diverged_by_tick === null || row.diverged_by_tick === undefined ? null : Number(row.diverged_by_tick),
    createdAt: String(row.created_at),
  };
}

function toJudgement(row: Row): JudgementRecord {
  return {
    id: Number(row.id),
    participantId: Number(row.participant_id),
    episodeId: Number(row.episode_id),
    clip: Number(row.clip),
    agent: Number(row.agent),
    truth: String(row.truth),
    judgedHuman: row.judged_human === 1,
    createdAt: String(row.created_at),
  };
}

const ATTEMPT_COLUMNS = 'id, participant_id, block, episode, attempt, seed, status, started_at, ended_at, ticks';

function toAttempt(row: Row): AttemptRecord {
  return {
    id: Number(row.id),
    participantId: Number(row.participant_id),
    block: Number(row.block),
    episode: Number(row.episode),
    attempt: Number(row.attempt),
    seed: Number(row.seed),
    status: row.status as AttemptStatus,
    startedAt: String(row.started_at),
    endedAt: str(row.ended_at),
    ticks: row.ticks === null ? null : Number(row.ticks),
  };
}

export interface StoreOptions {
  /** Clock (tests); default the system clock. */
  readonly now?: () => Date;
  readonly readonly?: boolean;
  /**
   * How long a write waits for another connection's write lock before it fails with
   * SQLITE_BUSY (default 5000 ms, for commands). better-sqlite3 waits on the calling
   * thread: the server passes a short wait (SERVER_BUSY_TIMEOUT_MS) so a lock held by
   * another program never stalls its event loop for seconds.
   */
  readonly busyTimeoutMs?: number;
}

/** The server's wait for a write lock: its own writes take milliseconds, so a lock held longer is another program's, and the request is answered 503 to retry. */
export const SERVER_BUSY_TIMEOUT_MS = 100;

/** A session of this Prolific participant (PROLIFIC_PID) already exists in the study: one person, one session. */
export class ParticipantExists extends Error {
  constructor(readonly prolificPid: string) {
    super(`Prolific participant ${prolificPid} already has a session in this study`);
  }
}

export class StudyStore {
  /** The store's clock: what it stamps records with, and what checks of their times compare with. */
  readonly now: () => Date;

  private constructor(
    readonly db: Database.Database,
    readonly path: string,
    options: StoreOptions,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Open (creating when needed) the database at `path`, in WAL mode with foreign keys on.
   * A file that is not a study database this build reads is refused (UnusableStudyDatabase)
   * before anything is written to it.
   */
  static open(path: string, options: StoreOptions = {}): StudyStore {
    if (path !== ':memory:' && !options.readonly) mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path, options.readonly ? { readonly: true, fileMustExist: true } : {});
    try {
      db.pragma(`busy_timeout = ${Math.max(0, Math.round(options.busyTimeoutMs ?? 5000))}`);
      const { version } = identify(db, path);
      if (!options.readonly) {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        db.pragma('foreign_keys = ON');
        migrate(db, path, version);
      }
    } catch (err) {
      db.close();
      throw err;
    }
    return new StudyStore(db, path, options);
  }

  close(): void {
    this.db.close();
  }

  /** Run `write` as one transaction (taking the write lock first): all of its writes or none. */
  transaction<T>(write: () => T): T {
    return this.db.transaction(write).immediate();
  }

  private stamp(): string {
    return this.now().toISOString();
  }

  // --- studies -------------------------------------------------------------------------

  /** Store a new study; its config must carry an id. `baseUrl`: where participants reach it, if known. */
  createStudy(config: StudyConfig, adminTokenHash: string, baseUrl: string | null = null): StudyRecord {
    if (!config.id) throw new Error('createStudy: the config has no id');
    if (this.getStudy(config.id)) throw new Error(`a study '${config.id}' already exists in ${this.path}`);
    const created = this.stamp();
    this.db
      .prepare('INSERT INTO studies (id, kind, title, config, admin_token_hash, status, created_at, base_url) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(config.id, config.kind, config.title, JSON.stringify(config), adminTokenHash, 'open', created, baseUrl);
    return this.getStudy(config.id)!;
  }

  getStudy(id: string): StudyRecord | null {
    const row = this.db.prepare('SELECT * FROM studies WHERE id = ?').get(id) as Row | undefined;
    return row ? toStudy(row) : null;
  }

  /** True when `token` is the study's admin token (compared in constant time). */
  checkAdminToken(id: string, token: string): boolean {
    const row = this.db.prepare('SELECT admin_token_hash FROM studies WHERE id = ?').get(id) as { admin_token_hash: string } | undefined;
    if (!row) return false;
    const a = Buffer.from(row.admin_token_hash, 'hex');
    const b = Buffer.from(hashToken(token), 'hex');
    return a.length === b.length && timingSafeEqual(a, b);
  }

  setStudyStatus(id: string, status: 'open' | 'closed'): void {
    this.db.prepare('UPDATE studies SET status = ? WHERE id = ?').run(status, id);
  }

  listStudies(): StudyListing[] {
    const rows = this.db
      .prepare(
        `SELECT s.*,
           (SELECT COUNT(*) FROM participants p WHERE p.study_id = s.id) AS n_participants,
           (SELECT COUNT(*) FROM participants p WHERE p.study_id = s.id AND p.completed_at IS NOT NULL) AS n_completed,
           (SELECT COUNT(*) FROM episodes e WHERE e.study_id = s.id) AS n_episodes
         FROM studies s ORDER BY s.created_at, s.id`,
      )
      .all() as Row[];
    return rows.map((row) => ({
      ...toStudy(row),
      participants: Number(row.n_participants),
      completed: Number(row.n_completed),
      episodes: Number(row.n_episodes),
    }));
  }

  // --- participants --------------------------------------------------------------------

  /**
   * A new participant with a fresh session token, assigned the least-held row of the
   * study's Williams design (in one transaction, so simultaneous arrivals stay balanced).
   * `planClips` picks an observe study's clips for the participant's number.
   */
  createParticipant(
    study: StudyRecord,
    external: Readonly<Record<string, string>>,
    userAgent: string | null,
    planClips?: (participantNumber: number) => number[],
  ): { token: string; participant: ParticipantRecord } {
    const { token, hash } = newToken();
    const rows = williamsDesign(study.config.teams.length);
    const pid = external.PROLIFIC_PID;
    const create = this.db.transaction(() => {
      // In the write transaction, so two starts at once cannot both pass.
      if (pid !== undefined && this.db.prepare("SELECT 1 FROM participants WHERE study_id = ? AND json_extract(external, '$.PROLIFIC_PID') = ?").get(study.id, pid)) {
        throw new ParticipantExists(pid);
      }
      const now = this.now();
      const cutoff = new Date(now.getTime() - study.config.abandonAfterMinutes * 60_000).toISOString();
      const held = (
        this.db
          .prepare('SELECT order_row FROM participants WHERE study_id = ? AND (completed_at IS NOT NULL OR updated_at >= ?)')
          .all(study.id, cutoff) as { order_row: number }[]
      ).map((r) => r.order_row);
      const row = nextRow(rows.length, held);
      const last = this.db.prepare('SELECT MAX(number) AS n FROM participants WHERE study_id = ?').get(study.id) as { n: number | null };
      const number = (last.n ?? 0) + 1;
      const plan: ParticipantPlan = {
        order: rows[row]!.map((i) => study.config.teams[i]!),
        ...(planClips ? { clips: planClips(number) } : {}),
      };
      const stamp = now.toISOString();
      const info = this.db
        .prepare(
          'INSERT INTO participants (study_id, token_hash, number, order_row, plan, external, user_agent, consented_at, started_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(study.id, hash, number, row, JSON.stringify(plan), JSON.stringify(external), userAgent, stamp, stamp, stamp);
      return Number(info.lastInsertRowid);
    });
    const id = create.immediate();
    return { token, participant: this.participant(id)! };
  }

  participant(id: number): ParticipantRecord | null {
    const row = this.db.prepare('SELECT * FROM participants WHERE id = ?').get(id) as Row | undefined;
    return row ? toParticipant(row) : null;
  }

  /** The participant whose session token this is, in this study; null for any other token. */
  participantByToken(studyId: string, token: string): ParticipantRecord | null {
    const row = this.db.prepare('SELECT * FROM participants WHERE token_hash = ? AND study_id = ?').get(hashToken(token), studyId) as Row | undefined;
    return row ? toParticipant(row) : null;
  }

  participants(studyId: string): ParticipantRecord[] {
    return (this.db.prepare('SELECT * FROM participants WHERE study_id = ? ORDER BY number').all(studyId) as Row[]).map(toParticipant);
  }

  /** Set one of the step timestamps (instructions, practice) and refresh updated_at. */
  markStep(participantId: number, step: 'instructions' | 'practice', options: { skipped?: boolean } = {}): void {
    const stamp = this.stamp();
    if (step === 'instructions') this.db.prepare('UPDATE participants SET instructions_at = COALESCE(instructions_at, ?), updated_at = ? WHERE id = ?').run(stamp, stamp, participantId);
    else
      this.db
        .prepare('UPDATE participants SET practice_at = COALESCE(practice_at, ?), practice_skipped = ?, updated_at = ? WHERE id = ?')
        .run(stamp, options.skipped ? 1 : 0, stamp, participantId);
  }

  markCompleted(participantId: number): void {
    const stamp = this.stamp();
    this.db.prepare('UPDATE participants SET completed_at = COALESCE(completed_at, ?), updated_at = ? WHERE id = ?').run(stamp, stamp, participantId);
  }

  // --- answers -------------------------------------------------------------------------

  /** Store several answers at once (all or none); a repeated (block, kind, item) is refused. */
  addAnswers(participantId: number, answers: readonly NewAnswer[]): void {
    const insert = this.db.prepare(
      'INSERT INTO answers (participant_id, block, team, label, kind, item, value_num, value_text, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const stamp = this.stamp();
    this.db.transaction(() => {
      for (const a of answers) insert.run(participantId, a.block, a.team, a.label, a.kind, a.item, a.valueNum, a.valueText, stamp);
      this.db.prepare('UPDATE participants SET updated_at = ? WHERE id = ?').run(stamp, participantId);
    })();
  }

  answers(participantId: number): AnswerRecord[] {
    return (this.db.prepare('SELECT * FROM answers WHERE participant_id = ? ORDER BY id').all(participantId) as Row[]).map(toAnswer);
  }

  // --- episodes ------------------------------------------------------------------------

  addEpisode(e: NewEpisode): StoredEpisode {
    const stamp = this.stamp();
    const id = this.db.transaction(() => {
      const info = this.db
        .prepare(
          `INSERT INTO episodes (study_id, participant_id, block, episode, opponent, teammate, seed, outcome, ticks, duration_seconds,
             progress_blue, progress_red, human_agents, agent_controllers, summary, replay, replay_ok, problem, diverged_by_tick, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          e.studyId,
          e.participantId,
          e.block,
          e.episode,
          e.opponent,
          e.teammate,
          e.seed,
          e.outcome,
          e.ticks,
          e.durationSeconds,
          e.progressBlue,
          e.progressRed,
          JSON.stringify(e.humanAgents),
          JSON.stringify(e.agentControllers),
          JSON.stringify(e.summary),
          e.replay,
          e.replayOk ? 1 : 0,
          e.problem ?? null,
          e.divergedByTick ?? null,
          stamp,
        );
      if (e.participantId !== null) this.db.prepare('UPDATE participants SET updated_at = ? WHERE id = ?').run(stamp, e.participantId);
      return Number(info.lastInsertRowid);
    })();
    return this.episode(id)!;
  }

  episode(id: number): StoredEpisode | null {
    const row = this.db.prepare(`SELECT ${EPISODE_COLUMNS} FROM episodes WHERE id = ?`).get(id) as Row | undefined;
    return row ? toEpisode(row) : null;
  }

  /** A participant's episodes, in the order played. */
  participantEpisodes(participantId: number): StoredEpisode[] {
    return (this.db.prepare(`SELECT ${EPISODE_COLUMNS} FROM episodes WHERE participant_id = ? ORDER BY id`).all(participantId) as Row[]).map(toEpisode);
  }

  /** Bytes of replays a participant has stored: episodes' and left episodes' (the study's storage quota counts them). */
  storedReplayBytes(participantId: number): number {
    const row = this.db
      .prepare(
        `SELECT (SELECT COALESCE(SUM(LENGTH(CAST(replay AS BLOB))), 0) FROM episodes WHERE participant_id = ?)
              + (SELECT COALESCE(SUM(LENGTH(CAST(replay AS BLOB))), 0) FROM attempts WHERE participant_id = ?) AS bytes`,
      )
      .get(participantId, participantId) as { bytes: number };
    return Number(row.bytes);
  }

  /** The stored replay JSON text of an episode. */
  replayText(episodeId: number): string | null {
    const row = this.db.prepare('SELECT replay FROM episodes WHERE id = ?').get(episodeId) as { replay: string } | undefined;
    return row?.replay ?? null;
  }

  summaryJson(episodeId: number): unknown {
    const row = this.db.prepare('SELECT summary FROM episodes WHERE id = ?').get(episodeId) as { summary: string } | undefined;
    return row ? JSON.parse(row.summary) : null;
  }

  /**
   * Episodes an observe study may show: verified replays of the given play studies (every
   * play study when the list is empty) that people played, plus the study's own bot clips.
   */
  clipPool(observeStudyId: string, fromStudies: readonly string[], includePeople: boolean): StoredEpisode[] {
    const own = (this.db.prepare(`SELECT ${EPISODE_COLUMNS} FROM episodes WHERE study_id = ? AND participant_id IS NULL AND replay_ok = 1 ORDER BY id`).all(observeStudyId) as Row[]).map(toEpisode);
    if (!includePeople) return own;
    const people = (
      this.db
        .prepare(
          `SELECT ${EPISODE_COLUMNS.split(', ').map((c) => `e.${c}`).join(', ')} FROM episodes e JOIN studies s ON s.id = e.study_id
           WHERE s.kind = 'play' AND e.participant_id IS NOT NULL AND e.block >= 0 AND e.replay_ok = 1 ORDER BY e.id`,
        )
        .all() as Row[]
    )
      .map(toEpisode)
      .filter((e) => fromStudies.length === 0 || fromStudies.includes(e.studyId));
    return [...own, ...people];
  }

  /** How many judgements each episode has had (for spreading clips evenly). */
  judgementCounts(): Map<number, number> {
    const rows = this.db.prepare('SELECT episode_id, COUNT(DISTINCT participant_id) AS n FROM judgements GROUP BY episode_id').all() as { episode_id: number; n: number }[];
    return new Map(rows.map((r) => [r.episode_id, r.n]));
  }

  // --- judgements ----------------------------------------------------------------------

  addJudgements(participantId: number, episodeId: number, clip: number, items: readonly { agent: number; truth: string; judgedHuman: boolean }[]): void {
    const insert = this.db.prepare(
      'INSERT INTO judgements (participant_id, episode_id, clip, agent, truth, judged_human, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const stamp = this.stamp();
    this.db.transaction(() => {
      for (const j of items) insert.run(participantId, episodeId, clip, j.agent, j.truth, j.judgedHuman ? 1 : 0, stamp);
      this.db.prepare('UPDATE participants SET updated_at = ? WHERE id = ?').run(stamp, participantId);
    })();
  }

  judgements(participantId: number): JudgementRecord[] {
    return (this.db.prepare('SELECT * FROM judgements WHERE participant_id = ? ORDER BY id').all(participantId) as Row[]).map(toJudgement);
  }

  // --- attempts ------------------------------------------------------------------------

  /** A participant's attempts, in the order started. */
  attempts(participantId: number): AttemptRecord[] {
    return (this.db.prepare(`SELECT ${ATTEMPT_COLUMNS} FROM attempts WHERE participant_id = ? ORDER BY id`).all(participantId) as Row[]).map(toAttempt);
  }

  /**
   * Start an attempt at an episode slot. An attempt of the slot still 'playing' was left
   * (a reload, a closed tab): it becomes 'abandoned' in the same transaction, so the
   * restart and the attempt it replaced are recorded together.
   */
  startAttempt(participantId: number, block: number, episode: number, seed: number): AttemptRecord {
    const stamp = this.stamp();
    const id = this.db.transaction(() => {
      this.db
        .prepare("UPDATE attempts SET status = 'abandoned', ended_at = ? WHERE participant_id = ? AND block = ? AND episode = ? AND status = 'playing'")
        .run(stamp, participantId, block, episode);
      const last = this.db.prepare('SELECT MAX(attempt) AS n FROM attempts WHERE participant_id = ? AND block = ? AND episode = ?').get(participantId, block, episode) as { n: number | null };
      const info = this.db
        .prepare("INSERT INTO attempts (participant_id, block, episode, attempt, seed, status, started_at) VALUES (?, ?, ?, ?, ?, 'playing', ?)")
        .run(participantId, block, episode, (last.n ?? 0) + 1, seed, stamp);
      this.db.prepare('UPDATE participants SET updated_at = ? WHERE id = ?').run(stamp, participantId);
      return Number(info.lastInsertRowid);
    })();
    return toAttempt(this.db.prepare(`SELECT ${ATTEMPT_COLUMNS} FROM attempts WHERE id = ?`).get(id) as Row);
  }

  /** The slot's attempt that is 'playing' becomes 'finished': its episode was stored. */
  finishAttempt(participantId: number, block: number, episode: number): void {
    this.db
      .prepare("UPDATE attempts SET status = 'finished', ended_at = ? WHERE participant_id = ? AND block = ? AND episode = ? AND status = 'playing'")
      .run(this.stamp(), participantId, block, episode);
  }

  /**
   * The page was left in the middle of attempt `attempt` of a slot: it becomes 'abandoned'
   * with how far it got and, when sent, its replay. The page says so as it unloads, so the
   * word may come after a restart already marked the attempt abandoned: then only what it
   * reached is added. Returns false when there was no such attempt to update.
   */
  abandonAttempt(participantId: number, block: number, episode: number, attempt: number, reached: { ticks?: number; replay?: string } = {}): boolean {
    const info = this.db
      .prepare(
        `UPDATE attempts SET status = 'abandoned', ended_at = COALESCE(ended_at, ?), ticks = ?, replay = ?
         WHERE participant_id = ? AND block = ? AND episode = ? AND attempt = ? AND (status = 'playing' OR (status = 'abandoned' AND ticks IS NULL))`,
      )
      .run(this.stamp(), reached.ticks ?? null, reached.replay ?? null, participantId, block, episode, attempt);
    return info.changes > 0;
  }

  /** The replay an abandoned attempt sent, as JSON text, or null. */
  attemptReplayText(attemptId: number): string | null {
    const row = this.db.prepare('SELECT replay FROM attempts WHERE id = ?').get(attemptId) as { replay: string | null } | undefined;
    return row?.replay ?? null;
  }

  // --- whole studies -------------------------------------------------------------------

  studyData(studyId: string): StudyData {
    const study = this.getStudy(studyId);
    if (!study) throw new Error(`no study '${studyId}' in ${this.path}`);
    const answers = (
      this.db.prepare('SELECT a.* FROM answers a JOIN participants p ON p.id = a.participant_id WHERE p.study_id = ? ORDER BY a.id').all(studyId) as Row[]
    ).map(toAnswer);
    const episodes = (this.db.prepare(`SELECT ${EPISODE_COLUMNS} FROM episodes WHERE study_id = ? ORDER BY id`).all(studyId) as Row[]).map(toEpisode);
    const judgements = (
      this.db.prepare('SELECT j.* FROM judgements j JOIN participants p ON p.id = j.participant_id WHERE p.study_id = ? ORDER BY j.id').all(studyId) as Row[]
    ).map(toJudgement);
    const attempts = (
      this.db
        .prepare(`SELECT ${ATTEMPT_COLUMNS.split(', ').map((c) => `t.${c}`).join(', ')} FROM attempts t JOIN participants p ON p.id = t.participant_id WHERE p.study_id = ? ORDER BY t.id`)
        .all(studyId) as Row[]
    ).map(toAttempt);
    return { study, participants: this.participants(studyId), answers, episodes, judgements, attempts };
  }
}
