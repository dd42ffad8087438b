/**
 * The study database the server is given may be busy, newer, or not its own: another
 * program holding SQLite's write lock gets the participant a 503 to retry at once (the
 * server no longer waits 5 s on its event loop for each write), and a file of a newer
 * schema version or of another application is refused before a byte of it is written.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createAppServer, healthRoute, listen } from '../../src/server/server';
import { studyRoutes } from '../../src/server/studyRoutes';
import { SCHEMA_VERSION, STUDY_APPLICATION_ID, StudyStore, UnusableStudyDatabase, createStudy } from '../../src/survey';
import { TEST_PLATFORM } from '../helpers/platform';

const dir = mkdtempSync(join(tmpdir(), 'hillmind-dbfiles-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** A study database with one study, closed (its WAL folded into the file). */
async function studyFile(name: string): Promise<string> {
  const path = join(dir, name);
  const store = StudyStore.open(path);
  await createStudy(store, { id: 'files', teams: ['heuristic', 'random'], episodesPerBlock: 1, episodeSeconds: 1 }, TEST_PLATFORM);
  store.close();
  return path;
}

/** A server over the database at `path`, opened by the study routes as `npm start` opens it. */
async function serverOn(path: string) {
  const root = join(dir, 'dist');
  mkdirSync(root, { recursive: true });
  const running = await listen(createAppServer({ root, routes: [healthRoute(), studyRoutes({ root, dbPath: path, sessionsPerMinute: 1000 })] }), 0);
  const call = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${running.port}${route}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as { error?: { message: string } } };
  };
  return { running, call };
}

describe('a write lock held by another program', () => {
  it('is a 503 to retry, answered without waiting out the lock; reads go on and writes resume when it is released', async () => {
    const path = await studyFile('locked.sqlite');
    const { running, call } = await serverOn(path);
    const other = new Database(path);
    try {
      expect((await call('GET', '/api/study/files')).status).toBe(200);
      other.exec('BEGIN IMMEDIATE');
      const refused = await call('POST', '/api/study/files/session', { consent: true });
      expect(refused.status).toBe(503);
      expect(refused.retryAfter).toBe('1');
      expect(refused.body.error?.message).toMatch(/is busy: another program is writing to it; try again/);
      // WAL: readers are not held by a writer.
      expect((await call('GET', '/api/study/files')).status).toBe(200);
      expect((await call('GET', '/api/health')).status).toBe(200);
      other.exec('ROLLBACK');
      expect((await call('POST', '/api/study/files/session', { consent: true })).status).toBe(201);
    } finally {
      other.close();
      await running.close();
    }
  });

  it('fails a write at once with SQLITE_BUSY when the store is given no wait', async () => {
    const path = await studyFile('busy.sqlite');
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    const store = StudyStore.open(path, { busyTimeoutMs: 0 });
    try {
      expect(() => store.setStudyStatus('files', 'closed')).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
    } finally {
      other.exec('ROLLBACK');
      other.close();
      store.close();
    }
  });
});

describe('a file of a newer schema version', () => {
  it('is refused before anything is written, and the server answers 503 saying why, not 500', async () => {
    const path = await studyFile('future.sqlite');
    const raw = new Database(path);
    raw.pragma('journal_mode = DELETE');
    raw.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(SCHEMA_VERSION + 1));
    // A newer build may have dropped a table this one would make again.
    raw.exec('DROP TABLE judgements');
    raw.close();
    const before = digest(path);
    expect(() => StudyStore.open(path)).toThrow(UnusableStudyDatabase);
    expect(() => StudyStore.open(path)).toThrow(new RegExp(`study schema version ${SCHEMA_VERSION + 1}, and this build reads versions 1 to ${SCHEMA_VERSION}; it was written by a newer Hillmind`));
    expect(digest(path)).toBe(before);

    const { running, call } = await serverOn(path);
    try {
      const r = await call('GET', '/api/study/files');
      expect(r.status).toBe(503);
      expect(r.body.error?.message).toMatch(/written by a newer Hillmind/);
    } finally {
      await running.close();
    }
    expect(digest(path)).toBe(before);
  });
});

describe("another application's file", () => {
  it('is refused untouched, whether its tables are its own or its application id is', () => {
    const path = join(dir, 'other-app.sqlite');
    const raw = new Database(path);
    raw.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('ada')");
    raw.close();
    const before = digest(path);
    expect(() => StudyStore.open(path)).toThrow(/other-app\.sqlite is not a Hillmind study database \(it has tables of its own \(users\)\); it was left as it is/);
    expect(digest(path)).toBe(before);

    const tagged = join(dir, 'tagged.sqlite');
    const other = new Database(tagged);
    other.pragma('application_id = 1234');
    other.close();
    const taggedBefore = digest(tagged);
    expect(() => StudyStore.open(tagged)).toThrow(/its application id is 1234/);
    expect(digest(tagged)).toBe(taggedBefore);

    const text = join(dir, 'notes.sqlite');
    writeFileSync(text, 'not a database, but notes that are long enough to be read as a header by SQLite ...........');
    expect(() => StudyStore.open(text)).toThrow(/notes\.sqlite is not a SQLite database/);
  });

  it('is told from a study database, which carries the application id, and from a new file', async () => {
    const path = await studyFile('ours.sqlite');
    const store = StudyStore.open(path);
    try {
      expect(store.db.pragma('application_id', { simple: true })).toBe(STUDY_APPLICATION_ID);
      expect(store.listStudies().map((s) => s.id)).toEqual(['files']);
    } finally {
      store.close();
    }
  });
});
