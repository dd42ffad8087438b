/**
 * A study database written by an older build opens in this one with every row kept: the
 * episodes table made again for version 3 (an outcome may be 'unfinished', with the first
 * problem and where the re-simulation parted) keeps its episodes and the judgements that
 * point at them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION, StudyStore, createStudy } from '../../src/survey';
import { TEST_PLATFORM } from '../helpers/platform';

const dir = mkdtempSync(join(tmpdir(), 'hillmind-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The episodes table as versions 1 and 2 wrote it. */
const EPISODES_V2 = `CREATE TABLE episodes_v2 (
  id INTEGER PRIMARY KEY, study_id TEXT NOT NULL REFERENCES studies(id), participant_id INTEGER REFERENCES participants(id),
  block INTEGER NOT NULL, episode INTEGER NOT NULL, opponent TEXT NOT NULL, teammate TEXT NOT NULL, seed INTEGER NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('blue', 'red', 'draw')), ticks INTEGER NOT NULL, duration_seconds REAL NOT NULL,
  progress_blue REAL NOT NULL, progress_red REAL NOT NULL, human_agents TEXT NOT NULL, agent_controllers TEXT NOT NULL,
  summary TEXT NOT NULL, replay TEXT NOT NULL, replay_ok INTEGER NOT NULL CHECK (replay_ok IN (0, 1)), created_at TEXT NOT NULL,
  UNIQUE (participant_id, block, episode))`;

describe('opening a version 2 study database', () => {
  it('keeps every episode and the judgements of them, and then takes unfinished, flagged episodes', async () => {
    const path = join(dir, 'v2.sqlite');
    const made = StudyStore.open(path);
    const { study } = await createStudy(made, { id: 'old-observe', kind: 'observe', teams: ['heuristic', 'random'], episodeSeconds: 1, observe: { botMatches: 2, clips: 2 } }, TEST_PLATFORM);
    made.close();
    // As version 2 wrote it: the old episodes table (its rows kept), one judgement of a clip.
    const raw = new Database(path);
    raw.pragma('foreign_keys = OFF');
    raw.exec(`${EPISODES_V2};
      INSERT INTO episodes_v2 SELECT id, study_id, participant_id, block, episode, opponent, teammate, seed, outcome, ticks, duration_seconds,
        progress_blue, progress_red, human_agents, agent_controllers, summary, replay, replay_ok, created_at FROM episodes;
      DROP TABLE episodes;
      ALTER TABLE episodes_v2 RENAME TO episodes;`);
    raw.exec(`INSERT INTO participants (id, study_id, token_hash, number, order_row, plan, external, started_at, updated_at)
      VALUES (1, 'old-observe', 'hash', 1, 0, '{"order":[],"clips":[1,2]}', '{}', '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`);
    raw.exec(`INSERT INTO judgements (participant_id, episode_id, clip, agent, truth, judged_human, created_at) VALUES (1, 2, 0, 0, 'heuristic', 1, '2025-01-01T00:00:00.000Z')`);
    raw.exec('ALTER TABLE studies DROP COLUMN base_url');
    raw.prepare("UPDATE meta SET value = '2' WHERE key = 'schema_version'").run();
    const before = raw.prepare('SELECT * FROM episodes ORDER BY id').all();
    raw.close();

    const store = StudyStore.open(path);
    try {
      expect((store.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string }).value).toBe(String(SCHEMA_VERSION));
      expect(store.db.prepare('SELECT * FROM episodes ORDER BY id').all()).toEqual(before.map((row) => ({ ...(row as object), problem: null, diverged_by_tick: null })));
      // A study made before version 4 has no stored address: survey list says it falls back to the shell's.
      expect(store.getStudy(study.id)!.baseUrl).toBeNull();
      expect(store.studyData(study.id).judgements).toEqual([expect.objectContaining({ episodeId: 2, agent: 0, judgedHuman: true })]);
      expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1);
      const kept = store.addEpisode({
        ...store.episode(1)!,
        episode: 9,
        outcome: 'unfinished',
        replayOk: false,
        problem: 'outcome: the file says blue; the re-simulation gives unfinished',
        divergedByTick: 40,
        summary: {},
        replay: store.replayText(1)!,
      });
      expect(kept).toMatchObject({ outcome: 'unfinished', replayOk: false, divergedByTick: 40 });
    } finally {
      store.close();
    }
  });
});

describe('opening an up-to-date study database', () => {
  it('writes nothing (a database on a read-only or full disk still opens for reading)', () => {
    const path = join(dir, 'current.sqlite');
    StudyStore.open(path).close();
    const store = StudyStore.open(path);
    try {
      expect(store.db.prepare('SELECT total_changes() AS n').get()).toEqual({ n: 0 });
    } finally {
      store.close();
    }
  });
});
