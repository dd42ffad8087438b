import { beforeAll, describe, expect, it } from 'vitest';
import { Match, REPLAY_VERSION, type ReplayFile, ReplayRecorder, parseReplay, replayTicks, runMatch, verifyReplay } from '../../src/match';
import { createWorld, idleAction, step } from '../../src/sim';
import { testConfig } from '../helpers/world';
import { TEST_PLATFORM } from '../helpers/platform';

const clone = (r: ReplayFile): ReplayFile => JSON.parse(JSON.stringify(r)) as ReplayFile;

describe('replays', () => {
  let replay: ReplayFile;
  let hash: string;
  let decisions: number;
  let progress: { blue: number; red: number };

  beforeAll(async () => {
    const match = await runMatch({ blue: 'bt-scripted', red: 'random', seed: 9 }, { platform: TEST_PLATFORM });
    replay = match.replay();
    hash = match.summary().hash;
    decisions = match.summary().decisions.blue + match.summary().decisions.red;
    progress = match.summary().progress;
  });

  it('a recorded replay verifies against the match final hash', () => {
    const result = verifyReplay(replay);
    expect(result).toMatchObject({ ok: true, expectedHash: hash, actualHash: hash, ticks: replay.ticks });
    expect(result.progress).toEqual(progress);
    expect(replay.outcome).not.toBe('unfinished');
    expect(replay.teams).toEqual({ blue: 'bt-scripted', red: 'random' });
    expect(replay.decisions).toHaveLength(decisions);
  });

  it('records only changes of action, starting with every agent at tick 0', () => {
    expect(replay.actions.length).toBeLessThan(replay.ticks * 4);
    expect(replay.actions.filter((r) => r[0] === 0).map((r) => r[1])).toEqual([0, 1, 2, 3]);
    for (let i = 1; i < replay.actions.length; i++) expect(replay.actions[i]![0]).toBeGreaterThanOrEqual(replay.actions[i - 1]![0]);
  });

  it('still verifies after a JSON round trip (stringify, parseReplay)', () => {
    const parsed = parseReplay(JSON.stringify(replay));
    expect(verifyReplay(parsed).ok).toBe(true);
    expect(parsed).toEqual(clone(replay));
  });

  it("keeps each decision's timing (when an asynchronous strategist asked, how long it took, what asked, cached or not)", () => {
    const timed = clone(replay);
    expect(timed.decisions.length).toBeGreaterThan(1);
    timed.decisions[0] = { ...timed.decisions[0]!, timing: { requestTick: 0, latencyMs: 312.5, trigger: 'periodic' } };
    timed.decisions[1] = { ...timed.decisions[1]!, timing: { requestTick: 40, latencyMs: 0, trigger: 'elimination+contested', cached: true } };
    const parsed = parseReplay(JSON.stringify(timed));
    expect(parsed.decisions[0]!.timing).toEqual({ requestTick: 0, latencyMs: 312.5, trigger: 'periodic' });
    expect(parsed.decisions[1]!.timing).toEqual({ requestTick: 40, latencyMs: 0, trigger: 'elimination+contested', cached: true });
    expect(parsed).toEqual(timed);
    expect(verifyReplay(parsed).ok).toBe(true);

    const bad = clone(timed);
    (bad.decisions[0]!.timing as { latencyMs: number }).latencyMs = -1;
    expect(() => parseReplay(JSON.stringify(bad))).toThrow(/malformed at decisions\.0\.timing\.latencyMs/);
  });

  it('the recorder keeps the timing a strategist reports', () => {
    const world = createWorld(2);
    const recorder = new ReplayRecorder(world.agents.length);
    const timing = { requestTick: 3, latencyMs: 120, trigger: 'periodic' };
    recorder.decisions.push({ tick: 9, team: 0, skills: ['combat', 'secure'], source: 'llm', rationale: 'push', timing });
    recorder.record(world.tick, world.agents.map(() => idleAction()));
    step(world, world.agents.map(() => idleAction()));
    const file = parseReplay(JSON.stringify(recorder.file(world, { blue: 'llm', red: 'bt' })));
    expect(file.decisions).toEqual([{ tick: 9, team: 0, skills: ['combat', 'secure'], source: 'llm', rationale: 'push', timing }]);
  });

  it('tampering with one action row makes verification fail', () => {
    const tampered = clone(replay);
    const row = tampered.actions.find((r) => r[1] === 0)!;
    row[2] = row[2] === 1 ? -1 : 1; // agent 0's first move
    const result = verifyReplay(tampered);
    expect(result.ok).toBe(false);
    expect(result.actualHash).not.toBe(replay.finalHash);

    const late = clone(replay);
    const mid = late.actions[Math.floor(late.actions.length / 2)]!;
    mid[3] = mid[3] > 0 ? -1 : 1; // turn the other way
    mid[2] = mid[2] > 0 ? -1 : 1;
    expect(verifyReplay(late).ok).toBe(false);
  });

  it('a wrong final hash or tick count fails verification', () => {
    expect(verifyReplay({ ...clone(replay), finalHash: '0123456789abcdef' }).ok).toBe(false);
    expect(verifyReplay({ ...clone(replay), ticks: replay.ticks - 1 }).ok).toBe(false);
  });

  it('replayTicks yields the world after every tick', () => {
    let n = 0;
    const ticks = replayTicks(replay);
    for (let r = ticks.next(); !r.done; r = ticks.next()) {
      n++;
      expect(r.value.tick).toBe(n);
    }
    expect(n).toBe(replay.ticks);
  });

  it('an unfinished match replays to the tick where it stopped', async () => {
    const match = await Match.create({ blue: 'heuristic', red: 'bt-scripted', seed: 3 }, { platform: TEST_PLATFORM });
    for (let i = 0; i < 120; i++) match.advance();
    const partial = match.replay();
    expect(partial.outcome).toBe('unfinished');
    expect(partial.ticks).toBe(120);
    expect(verifyReplay(parseReplay(JSON.stringify(partial)))).toMatchObject({ ok: true, ticks: 120 });
  });

  it('a match on a custom config records the config, so its replay verifies', async () => {
    const config = { ...testConfig({ spread: 0.05 }), episodeSeconds: 10 };
    const match = await runMatch({ blue: 'heuristic', red: 'heuristic', seed: 2, config }, { platform: TEST_PLATFORM });
    const r = parseReplay(JSON.stringify(match.replay()));
    expect(r.config.episodeSeconds).toBe(10);
    expect(verifyReplay(r).ok).toBe(true);
  });

  it('a row naming an agent the world lacks is a clear error', () => {
    const bad = clone(replay);
    bad.actions[0]![1] = 7;
    expect(() => verifyReplay(bad)).toThrow(/names agent 7; the world has 4/);
  });

  // BUG (src/match/replay.ts, ReplayRecorder.record stores raw action values): step()
  // deliberately tolerates NaN from a broken policy (clampUnit makes it 0), but the recorder
  // stores the NaN (and, since NaN !== NaN, a row on every tick); JSON turns it into null,
  // so the written replay no longer parses ("malformed at actions.0.2"). Recording the
  // clamped values (or NaN as 0) would keep such a match replayable.
  it('a match where a policy wrote NaN still verifies after a JSON round trip', () => {
    const world = createWorld(1);
    const recorder = new ReplayRecorder(world.agents.length);
    const actions = world.agents.map(() => ({ ...idleAction(), move: 1 }));
    actions[0]!.turn = Number.NaN;
    for (let i = 0; i < 20; i++) {
      recorder.record(world.tick, actions);
      step(world, actions);
      recorder.checkpoint(world);
    }
    const file = recorder.file(world, { blue: 'a', red: 'b' });
    expect(verifyReplay(file).resimulates).toBe(true);
    expect(verifyReplay(parseReplay(JSON.stringify(file))).resimulates).toBe(true);
  });

  it('a match created without recording has no replay', async () => {
    const match = await Match.create({ blue: 'heuristic', red: 'heuristic', seed: 1 }, { platform: TEST_PLATFORM, record: false });
    expect(() => match.replay()).toThrow(/record: false/);
  });
});

describe('parseReplay errors', () => {
  let good: Record<string, unknown>;

  beforeAll(async () => {
    const match = await Match.create({ blue: 'heuristic', red: 'heuristic', seed: 1 }, { platform: TEST_PLATFORM });
    for (let i = 0; i < 10; i++) match.advance();
    good = JSON.parse(JSON.stringify(match.replay())) as Record<string, unknown>;
  });

  it('invalid JSON, naming the source', () => {
    expect(() => parseReplay('{"format": ', 'runs/a.json')).toThrow(/^runs\/a\.json is not valid JSON/);
  });

  it.each(['{"hello": 1}', '[]', 'null', '42', '{"format": "something-else", "version": 1}'])('non-replay JSON %s', (text) => {
    expect(() => parseReplay(text)).toThrow(/is not a Hillmind replay/);
  });

  it('a wrong version names the version found and the one read', () => {
    expect(() => parseReplay(JSON.stringify({ ...good, version: REPLAY_VERSION + 1 }))).toThrow(`replay version ${REPLAY_VERSION + 1}; this build reads version ${REPLAY_VERSION}`);
    // Version 1 came before the engine-independent simulation: it says so, and what to do.
    expect(() => parseReplay(JSON.stringify({ ...good, version: 1 }))).toThrow(/replay version 1; this build reads version 2 \(version 1 was recorded before the simulation gave the same bits in every engine, and no longer replays; record the match again\)/);
  });

  // Minor BUG (src/match/replay.ts, parseReplay's header check): a file with the right
  // "format" but a missing or non-numeric "version" is called "not a Hillmind replay"
  // instead of naming the bad version field.
  it('a right-format file with a missing or string version is reported as a version problem', () => {
    for (const version of [undefined, '1']) {
      expect(() => parseReplay(JSON.stringify({ ...good, version }))).toThrow(/version/);
    }
  });

  it('a malformed field names its path', () => {
    const bad = (patch: (r: Record<string, any>) => void) => {
      const r = JSON.parse(JSON.stringify(good)) as Record<string, any>;
      patch(r);
      return JSON.stringify(r);
    };
    expect(() => parseReplay(bad((r) => (r.seed = -5)))).toThrow(/malformed at seed/);
    expect(() => parseReplay(bad((r) => (r.config.arena.width = 'wide')))).toThrow(/malformed at config\.arena\.width/);
    expect(() => parseReplay(bad((r) => (r.actions[2] = [0, 1, 0, 0, 0]))) ).toThrow(/malformed at actions\.2/);
    expect(() => parseReplay(bad((r) => (r.finalHash = 'xyz')))).toThrow(/malformed at finalHash/);
    expect(() => parseReplay(bad((r) => delete r.teams))).toThrow(/malformed at teams/);
  });

  it("bounds the arrays by the file's own config before reading any row: a flood of bad rows is refused by its length", () => {
    const config = good.config as { tickHz: number; episodeSeconds: number };
    const rows = 4 * (config.tickHz * config.episodeSeconds + 1);
    // Every number out of range: read row by row, this reported an issue for each one.
    const flood = { ...good, actions: Array.from({ length: rows + 1 }, () => [0, 9, 5, 5, 5, 5, 5]) };
    expect(() => parseReplay(JSON.stringify(flood))).toThrow(`replay has ${rows + 1} action rows; 4 agents over ${rows / 4} ticks have at most ${rows} (one per agent and tick)`);
    const decisions = { ...good, decisions: Array.from({ length: rows / 2 + 1 }, () => 'not a decision') };
    expect(() => parseReplay(JSON.stringify(decisions))).toThrow(`replay has ${rows / 2 + 1} decisions; a match of ${rows / 4 - 1} ticks has at most ${rows / 2}`);
  });

  it('names the first bad row of a long file, past the first block read', () => {
    const actions = Array.from({ length: 2000 }, (_, i) => [i >> 2, i & 3, 0, 0, 0, 0, 0]);
    actions[1500] = [375, 0, 0, 2, 0, 0, 0];
    expect(() => parseReplay(JSON.stringify({ ...good, ticks: 10, actions }))).toThrow(/^replay is malformed at actions\.1500\.3: Too big/);
  });
});
