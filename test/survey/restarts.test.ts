/**
 * Restarting an episode after leaving it (a reload, a closed tab): every start is an
 * attempt, a restart records the attempt it replaced as abandoned, the number of restarts
 * is capped by the study's config, and older databases gain the attempts table.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Match } from '../../src/match';
import { DEFAULT_CONFIG } from '../../src/sim';
import {
  type ParticipantRecord,
  SCHEMA_VERSION,
  type ParticipantState,
  StudyError,
  type StudyRecord,
  StudyStore,
  abandonAttempt,
  acknowledgeInstructions,
  createStudy,
  inProcessChecker,
  parseStudyConfig,
  recordEpisode,
  sessionState,
  skipPractice,
  startAttempt,
  studyCsv,
  studyJson,
} from '../../src/survey';
import { createHumanTeam } from '../../src/teams/human';
import { TEST_PLATFORM } from '../helpers/platform';
import { IDLE_INPUT, humanReplay, manualClock } from './fixture';

let dir: string;
const clock = manualClock();
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hillmind-restarts-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function studyWith(restartsPerEpisode: number | undefined, id: string) {
  const store = StudyStore.open(join(dir, `${id}.sqlite`), { now: clock.now });
  const { study } = await createStudy(
    store,
    { id, teams: ['bt-scripted', 'heuristic'], episodesPerBlock: 2, episodeSeconds: 1, ...(restartsPerEpisode === undefined ? {} : { restartsPerEpisode }) },
    TEST_PLATFORM,
  );
  const { participant } = store.createParticipant(study, {}, 'test');
  acknowledgeInstructions(store, study, participant);
  skipPractice(store, study, store.participant(participant.id)!);
  return { store, study, participant: store.participant(participant.id)! };
}

const play = (state: ParticipantState) => {
  if (state.step.kind !== 'play') throw new Error(`expected a play step, got ${state.step.kind}`);
  return state.step;
};

async function finish(store: StudyStore, study: StudyRecord, participant: ParticipantRecord, state: ParticipantState): Promise<ParticipantState> {
  const step = play(state);
  const replay = await humanReplay(step.opponent, step.seed, { ...DEFAULT_CONFIG, episodeSeconds: 1 });
  clock.advance(replay.ticks / DEFAULT_CONFIG.tickHz + 3);
  return recordEpisode(store, study, participant, JSON.stringify({ block: step.block, episode: step.episode, replay }), inProcessChecker(TEST_PLATFORM.models));
}

describe('episode restarts', () => {
  it('allow one restart by default, configurable from 0 to 10', () => {
    expect(parseStudyConfig({}).restartsPerEpisode).toBe(1);
    expect(parseStudyConfig({ restartsPerEpisode: 0 }).restartsPerEpisode).toBe(0);
    expect(() => parseStudyConfig({ restartsPerEpisode: -1 })).toThrow(/restartsPerEpisode/);
    expect(() => parseStudyConfig({ restartsPerEpisode: 1.5 })).toThrow(/restartsPerEpisode/);
    expect(() => parseStudyConfig({ restartPerEpisode: 1 })).toThrow(/unrecognized|restartPerEpisode/i);
  });

  it('record each start; a restart marks the attempt it replaced as abandoned; a finished episode ends its attempt', async () => {
    const { store, study, participant } = await studyWith(undefined, 'restart-once');
    const first = play(sessionState(store, study, participant));
    expect(first.restarts).toEqual({ used: 0, allowed: 1 });
    startAttempt(store, study, participant, { block: first.block, episode: first.episode });
    // The page reloads and the participant presses Start again.
    const again = startAttempt(store, study, participant, { block: first.block, episode: first.episode });
    expect(play(again)).toMatchObject({ block: first.block, episode: first.episode, restarts: { used: 1, allowed: 1 } });
    expect(again.notice).toBeUndefined();
    const attempts = store.attempts(participant.id);
    expect(attempts.map((a) => [a.attempt, a.status])).toEqual([
      [1, 'abandoned'],
      [2, 'playing'],
    ]);
    expect(attempts[0]!.endedAt).toBe(attempts[1]!.startedAt);
    // Word from the left page that comes after the restart adds how far it got, and leaves the new attempt alone.
    abandonAttempt(store, study, participant, { block: first.block, episode: first.episode, attempt: 1, ticks: 42 });
    expect(store.attempts(participant.id).map((a) => [a.status, a.ticks])).toEqual([
      ['abandoned', 42],
      ['playing', null],
    ]);
    const next = await finish(store, study, participant, again);
    expect(store.attempts(participant.id).map((a) => a.status)).toEqual(['abandoned', 'finished']);
    expect(play(next)).toMatchObject({ block: first.block, episode: first.episode + 1, restarts: { used: 0, allowed: 1 } });
  });

  it('skip an episode left more often than allowed, say why, and refuse its late result', async () => {
    const { store, study, participant } = await studyWith(1, 'restart-cap');
    const step = play(sessionState(store, study, participant));
    const at = { block: step.block, episode: step.episode };
    startAttempt(store, study, participant, at);
    startAttempt(store, study, participant, at);
    const moved = startAttempt(store, study, participant, at);
    expect(play(moved)).toMatchObject({ block: step.block, episode: step.episode + 1 });
    expect(moved.notice).toMatch(/Episode 1 of block 1 was left before its end more than once/);
    expect(store.attempts(participant.id).map((a) => a.status)).toEqual(['abandoned', 'abandoned']);
    // The skipped episode cannot be sent any more.
    const replay = await humanReplay(step.opponent, step.seed, { ...DEFAULT_CONFIG, episodeSeconds: 1 });
    await expect(recordEpisode(store, study, participant, JSON.stringify({ ...at, replay }), inProcessChecker(TEST_PLATFORM.models))).rejects.toThrow(StudyError);
    // The notice stays until the next episode starts.
    expect(sessionState(store, study, participant).notice).toMatch(/not played again/);
    startAttempt(store, study, participant, { block: step.block, episode: step.episode + 1 });
    expect(sessionState(store, study, participant).notice).toBeUndefined();
  });

  it('take a start sent again after its answer was lost as that same start: lost answers cost no restart', async () => {
    const { store, study, participant } = await studyWith(1, 'restart-retry');
    const step = play(sessionState(store, study, participant));
    const at = { block: step.block, episode: step.episode };
    // The first start's answer is lost twice; the page sends it a third time.
    for (let i = 0; i < 3; i++) expect(play(startAttempt(store, study, participant, { ...at, attempt: 1 }))).toMatchObject({ ...at, attempt: 1, restarts: { used: 0, allowed: 1 } });
    expect(store.attempts(participant.id).map((a) => [a.attempt, a.status])).toEqual([[1, 'playing']]);
    // A reload is still a restart (the page names the next start), and its own retries are not more.
    for (let i = 0; i < 2; i++) expect(play(startAttempt(store, study, participant, { ...at, attempt: 2 }))).toMatchObject({ ...at, attempt: 2, restarts: { used: 1, allowed: 1 } });
    expect(store.attempts(participant.id).map((a) => [a.attempt, a.status])).toEqual([
      [1, 'abandoned'],
      [2, 'playing'],
    ]);
    // A start that is neither the one under way nor the next comes from a stale page.
    expect(() => startAttempt(store, study, participant, { ...at, attempt: 1 })).toThrow(/started 2 times, so its next start is attempt 3, not 1/);
    expect(() => startAttempt(store, study, participant, { ...at, attempt: 5 })).toThrow(StudyError);
  });

  it('with no restarts allowed, leaving once skips the episode; the page can say how far it got', async () => {
    const { store, study, participant } = await studyWith(0, 'restart-none');
    const step = play(sessionState(store, study, participant));
    expect(step.attempt).toBe(0);
    expect(play(startAttempt(store, study, participant, { block: step.block, episode: step.episode })).attempt).toBe(1);
    // The page is left 20 ticks in; it sends how far it got and the replay so far.
    const match = await Match.create(
      { blue: 'human', red: step.opponent, seed: step.seed, config: { ...DEFAULT_CONFIG, episodeSeconds: 1 } },
      { platform: TEST_PLATFORM, controllers: { blue: (ctx) => createHumanTeam(ctx, { teammate: step.teammate, humanSlots: [0], input: IDLE_INPUT }) } },
    );
    for (let i = 0; i < 20; i++) await match.advance();
    const left = abandonAttempt(store, study, participant, { block: step.block, episode: step.episode, attempt: 1, ticks: 20, replay: match.replay() });
    expect(play(left)).toMatchObject({ block: step.block, episode: step.episode + 1 });
    expect(left.notice).toMatch(/was left before its end, so it is not played again/);
    const [attempt] = store.attempts(participant.id);
    expect(attempt).toMatchObject({ status: 'abandoned', ticks: 20 });
    expect(JSON.parse(store.attemptReplayText(attempt!.id)!)).toMatchObject({ ticks: 20, outcome: 'unfinished' });
    // A replay that does not say what the request says is refused.
    expect(() => abandonAttempt(store, study, participant, { block: 0, episode: 1, attempt: 1, ticks: 5, replay: match.replay() })).toThrow(/20 ticks, not 5/);
    // The researcher sees the attempt in the exports.
    const data = store.studyData(study.id);
    expect(studyCsv(data, 'attempts').split('\r\n')[1]).toMatch(/^restart-none,1,0,0,1,\d+,abandoned,/);
    const doc = JSON.parse(studyJson(store, data, { replays: true })) as { attempts: { participant: number; status: string; replay: { ticks: number } }[] };
    expect(doc.attempts[0]).toMatchObject({ participant: 1, status: 'abandoned', replay: { ticks: 20 } });
  });

  it('brings a version 1 database up to date, and refuses a newer one', async () => {
    const { store, study } = await studyWith(undefined, 'old-study');
    store.close();
    // Make it look as version 1 wrote it: no attempts table, no stored address, version 1.
    const raw = new Database(join(dir, 'old-study.sqlite'));
    raw.exec('DROP TABLE attempts; ALTER TABLE studies DROP COLUMN base_url');
    raw.prepare("UPDATE meta SET value = '1' WHERE key = 'schema_version'").run();
    raw.close();
    const reopened = StudyStore.open(join(dir, 'old-study.sqlite'));
    expect((reopened.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string }).value).toBe(String(SCHEMA_VERSION));
    const participant = reopened.participants(study.id)[0]!;
    expect(play(sessionState(reopened, study, participant)).episode).toBe(0);
    expect(reopened.studyData(study.id).attempts).toEqual([]);
    reopened.close();

    const path = join(dir, 'newer.sqlite');
    const newer = new Database(path);
    newer.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('schema_version', '99');");
    newer.close();
    expect(() => StudyStore.open(path)).toThrow(`version 99, and this build reads versions 1 to ${SCHEMA_VERSION}`);
  });
});
