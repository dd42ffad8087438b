/**
 * Replay verification checks every claim a file makes: the hash at the tick count, the
 * outcome, spec versions, teams, and the decisions against the actions (re-derived from
 * the decided skills, scripted or trained), all bounded before the first tick.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { CHECKPOINT_EVERY, Match, type ReplayFile, checkReplayBounds, formatVerification, parseReplay, replayTicks, runMatch, summaryProblems, verifyReplay, verifyReplayWithModels } from '../../src/match';
import { DEFAULT_CONFIG, hashWorld } from '../../src/sim';
import type { TeamController } from '../../src/teams';
import { createHumanTeam } from '../../src/teams/human';
import { humanReplay } from '../survey/fixture';
import { TEST_PLATFORM } from '../helpers/platform';

/** The checkpoints a forger would write for edited actions: the hashes of re-simulating them. */
function checkpointsOf(replay: ReplayFile): ReplayFile['checkpoints'] {
  const hashes: string[] = [];
  for (const world of replayTicks(replay)) if (world.tick % CHECKPOINT_EVERY === 0) hashes.push(hashWorld(world));
  return { every: CHECKPOINT_EVERY, hashes: hashes.join('') };
}

const clone = (r: ReplayFile): ReplayFile => JSON.parse(JSON.stringify(r)) as ReplayFile;
const edited = (r: ReplayFile, edit: (c: ReplayFile) => void): ReplayFile => {
  const c = clone(r);
  edit(c);
  return c;
};

let scripted: ReplayFile; // bt-scripted vs random: both sides on scripted skills
let trained: ReplayFile; // bt vs flat: trained skills and the trained flat policy

beforeAll(async () => {
  scripted = (await runMatch({ blue: 'bt-scripted', red: 'random', seed: 9 }, { platform: TEST_PLATFORM })).replay();
  trained = (await runMatch({ blue: 'bt', red: 'flat', seed: 2 }, { platform: TEST_PLATFORM })).replay();
});

describe('verifyReplay', () => {
  it('an honest replay holds every claim; both sides re-derive from their decisions', () => {
    const result = verifyReplay(parseReplay(JSON.stringify(scripted)));
    expect(result).toMatchObject({ ok: true, resimulates: true, problems: [], outcome: scripted.outcome, ticks: scripted.ticks });
    expect(result.sides).toEqual({ blue: { checked: true, how: 'scripted skills', decisions: 'derived again' }, red: { checked: true, how: 'scripted skills', decisions: 'derived again' } });
  });

  it('the summary it derives is the match summary', async () => {
    const match = await runMatch({ blue: 'heuristic', red: 'bt-scripted', seed: 3 }, { platform: TEST_PLATFORM });
    expect(verifyReplay(match.replay()).summary).toEqual(match.summary());
  });

  it('a rewritten outcome fails, naming what the re-simulation gives', () => {
    const other = scripted.outcome === 'blue' ? 'red' : 'blue';
    const result = verifyReplay(edited(scripted, (c) => (c.outcome = other)));
    expect(result.ok).toBe(false);
    expect(result.resimulates).toBe(true);
    expect(result.outcome).toBe(scripted.outcome);
    expect(result.problems).toEqual([`outcome: the file says ${other}; the re-simulation gives ${scripted.outcome}`]);
  });

  it('a rewritten decision fails: the actions do not follow the skill it names', () => {
    const i = scripted.decisions.findIndex((d) => d.team === 1 && d.tick > 0);
    const result = verifyReplay(
      edited(scripted, (c) => {
        const d = c.decisions[i]!;
        c.decisions[i] = { ...d, skills: d.skills.map((s) => (s === 'retreat' ? 'secure' : 'retreat')) };
      }),
    );
    expect(result.ok).toBe(false);
    expect(result.resimulates).toBe(true);
    expect(result.sides.red).toEqual({ checked: false, how: 'its actions do not follow its decisions', decisions: "derived again, and they differ from the file's" });
    expect(result.problems.join('\n')).toMatch(/^red 'random' with scripted skills: agent \d's action at tick \d+ is \[move .*\]; its skill '\w+' gives \[move /m);
    expect(result.problems.join('\n')).toMatch(new RegExp(`^red 'random': its decisions are not its strategist's: at tick ${scripted.decisions[i]!.tick} the file gives agent \\d '\\w+'; its strategist gives it '\\w+'$`, 'm'));
  });

  it('a removed decision fails too', () => {
    const i = scripted.decisions.findIndex((d) => d.team === 0 && d.tick > 0);
    const result = verifyReplay(edited(scripted, (c) => c.decisions.splice(i, 1)));
    expect(result.ok).toBe(false);
    expect(result.problems.join('\n')).toMatch(/^blue 'bt-scripted' with scripted skills: /m);
  });

  it('rewritten teams fail: an unknown id, or a team whose strategist is another', () => {
    const unknown = verifyReplay(edited(scripted, (c) => (c.teams.blue = 'skynet')));
    expect(unknown.ok).toBe(false);
    expect(unknown.problems).toContain("teams.blue 'skynet' is not a team: unknown team id 'skynet': expected one of heuristic, bt, bt-scripted, llm, planner, flat, random, fixed, human");
    expect(unknown.sides.blue).toEqual({ checked: false, how: "not checked: 'skynet' is not a team", decisions: "not checked: 'skynet' is not a team" });

    const swapped = verifyReplay(edited(scripted, (c) => (c.teams.red = 'bt-scripted')));
    expect(swapped.ok).toBe(false);
    expect(swapped.problems.join('\n')).toMatch(/^decision \d+ \(tick \d+, red\) says it came from 'random'; 'bt-scripted' decides by 'behavior-tree' \(and \d+ more like it\)$/m);

    const flat = verifyReplay(edited(scripted, (c) => (c.teams.red = 'heuristic')));
    expect(flat.problems.join('\n')).toMatch(/'heuristic' has no strategist, so it makes no decisions/);
    expect(flat.problems.join('\n')).toMatch(/^red 'heuristic' with its scripted policy: /m);
  });

  it('rewritten spec versions fail', () => {
    const result = verifyReplay(edited(scripted, (c) => ((c.obsSpecVersion = 2), (c.actionSpecVersion = 7))));
    expect(result.problems).toEqual(['obsSpecVersion is 2; this build observes with spec v1', 'actionSpecVersion is 7; this build acts with spec v1']);
  });

  it('a wrong tick count says so once, without repeating a hash', () => {
    // The claim comes with the checkpoint those ten more ticks would have kept.
    const result = verifyReplay(edited(scripted, (c) => ((c.ticks += 10), (c.checkpoints.hashes += '0123456789abcdef'))));
    expect(result.problems).toEqual([`ticks: the file says ${scripted.ticks + 10}; the re-simulation ended at tick ${scripted.ticks} (${scripted.outcome === 'draw' ? 'a draw' : `${scripted.outcome} won`})`]);
    expect(result.expectedHash).toBe(result.actualHash);
    const text = formatVerification(scripted, result);
    expect(text.split(result.actualHash).length - 1).toBeLessThanOrEqual(1);
    expect(text).toMatch(/^replay MISMATCH: 1 claim does not hold\n {2}- ticks: /);
  });

  it('a wrong final hash names both hashes', () => {
    const result = verifyReplay(edited(scripted, (c) => (c.finalHash = '0123456789abcdef')));
    expect(result.problems).toEqual([`finalHash: the file says 0123456789abcdef; the re-simulation gives ${scripted.finalHash}`]);
  });

  it('a changed action is found where it changes the match: between the last checkpoint that agrees and the first that differs', () => {
    const row = scripted.actions.findIndex((r) => r[0] > 200 && r[2] !== 0);
    const tick = scripted.actions[row]![0];
    const result = verifyReplay(edited(scripted, (c) => (c.actions[row]![2] = -c.actions[row]![2])));
    expect(result.resimulates).toBe(false);
    const d = result.divergence!;
    expect(d.differsBy - d.agreedAt).toBe(scripted.checkpoints.every);
    // The edited row applies from its tick on: the first tick it can change is tick + 1.
    expect(d.agreedAt).toBeLessThanOrEqual(tick);
    expect(d.differsBy).toBeGreaterThan(tick);
    expect(result.problems[0]).toBe(`the re-simulation leaves the recorded match between tick ${d.agreedAt} and tick ${d.differsBy} (checkpoint hash ${d.expected}; the re-simulation gives ${d.actual})`);
    expect(verifyReplay(scripted).divergence).toBeNull();
  });

  it('action rows after the last tick are claims the match never played', () => {
    const result = verifyReplay(edited(scripted, (c) => c.actions.push([c.ticks + 5, 0, 1, 0, 0, 0, 0])));
    expect(result.problems).toEqual([`1 action row lie after the last tick played (${scripted.ticks - 1})`]);
  });
});

describe('replay bounds, before any simulation', () => {
  it('a config past the game limits is refused before the first tick', () => {
    const long = edited(scripted, (c) => ((c.config.episodeSeconds = 1e9), (c.ticks = 5e10)));
    expect(() => checkReplayBounds(long)).toThrow(/episodeSeconds is 1000000000 s; the game allows at most 600 s/);
    expect(() => verifyReplay(long)).toThrow(/asks for more than the game plays/);
    expect(() => parseReplay(JSON.stringify(long), 'long.json')).toThrow(/^long\.json asks for more than the game plays: episodeSeconds/);
    const many = edited(scripted, (c) => (c.config = { ...c.config, agent: { ...c.config.agent, perTeam: 40 } }));
    expect(() => parseReplay(JSON.stringify(many))).toThrow(/agent\.perTeam is 40; the game allows at most 8/);
  });

  it('more ticks than the config plays is refused', () => {
    expect(() => parseReplay(JSON.stringify(edited(scripted, (c) => (c.ticks = 3001))))).toThrow(/claims 3001 ticks; its config's episode ends by tick 3000/);
  });

  it('unknown keys anywhere are refused', () => {
    expect(() => parseReplay(JSON.stringify({ ...scripted, cheat: true }))).toThrow(/malformed at \(root\): Unrecognized key: "cheat"/);
    expect(() => parseReplay(JSON.stringify(edited(scripted, (c) => Object.assign(c.config.weapon, { autoAim: 1 }))))).toThrow(/malformed at config\.weapon/);
    expect(() => parseReplay(JSON.stringify(edited(scripted, (c) => Object.assign(c.decisions[0]!, { forged: 1 }))))).toThrow(/malformed at decisions\.0/);
  });

  it('action rows out of order, doubled, for missing agents or with values step() never applies are refused', () => {
    const rows = (edit: (rows: ReplayFile['actions']) => void) => () => parseReplay(JSON.stringify(edited(scripted, (c) => edit(c.actions))));
    expect(rows((a) => a.reverse())).toThrow(/rows must be in tick order/);
    expect(rows((a) => a.splice(1, 0, [...a[0]!]))).toThrow(/agent 0's second row at tick 0/);
    expect(rows((a) => (a[3]![1] = 4))).toThrow(/action row 3 names agent 4; the world has 4/);
    expect(rows((a) => (a[3]![2] = 5))).toThrow(/malformed at actions\.3\.2/);
    expect(rows((a) => (a[3]![6] = 0.5))).toThrow(/malformed at actions\.3\.6/);
  });

  it('a decision for the wrong number of agents is refused', () => {
    expect(() => parseReplay(JSON.stringify(edited(scripted, (c) => (c.decisions[0]!.skills = ['combat']))))).toThrow(/decision 0 gives 1 skills; the teams have 2 agents/);
  });
});

describe('verifyReplayWithModels', () => {
  it('re-derives the trained skills and the trained flat policy', async () => {
    expect(verifyReplay(trained).sides).toEqual({
      blue: { checked: false, how: 'not checked: the trained skills are not loaded here', decisions: 'derived again' },
      red: { checked: false, how: "not checked: the trained model 'flat' is not loaded here", decisions: 'none (it has no strategist)' },
    });
    const result = await verifyReplayWithModels(trained, { models: TEST_PLATFORM.models });
    expect(result.ok).toBe(true);
    expect(result.sides).toEqual({
      blue: { checked: true, how: 'trained skills', decisions: 'derived again' },
      red: { checked: true, how: 'its trained policy', decisions: 'none (it has no strategist)' },
    });
  });

  it("finds a rewritten decision of a trained team", async () => {
    const i = trained.decisions.findIndex((d) => d.team === 0 && d.tick > 0);
    const tampered = edited(trained, (c) => {
      const d = c.decisions[i]!;
      c.decisions[i] = { ...d, skills: d.skills.map((s) => (s === 'navigate' ? 'retreat' : 'navigate')) };
    });
    const result = await verifyReplayWithModels(tampered, { models: TEST_PLATFORM.models });
    expect(result.ok).toBe(false);
    expect(result.problems.join('\n')).toMatch(/^blue 'bt' with trained skills: agent \d's action at tick \d+/m);
  });

  it('finds an action the flat policy would not take, even where the hash was recomputed to match', async () => {
    const row = trained.actions.findIndex((r) => r[1] === 2 && r[0] > 100);
    const tampered = edited(trained, (c) => (c.actions[row]![6] = c.actions[row]![6] ? 0 : 1));
    const rehashed = verifyReplay({ ...tampered, checkpoints: checkpointsOf(tampered) });
    const forged = { ...tampered, finalHash: rehashed.actualHash, ticks: rehashed.ticks, outcome: rehashed.outcome, checkpoints: checkpointsOf(tampered) };
    const result = await verifyReplayWithModels(forged, { models: TEST_PLATFORM.models });
    expect(result.resimulates).toBe(true);
    expect(result.ok).toBe(false);
    expect(result.problems.join('\n')).toMatch(/^red 'flat' with its trained policy: agent 2's action at tick/m);
  });
});

describe('people on a side', () => {
  let replay: ReplayFile;
  const people = { blue: { agents: [0], teammate: 'bt-scripted' } };
  /** The file as replays were saved before they recorded who played. */
  const withoutPeople = (r: ReplayFile) => edited(r, (c) => delete c.people);

  beforeAll(async () => {
    replay = await humanReplay('random', 4, { ...DEFAULT_CONFIG, episodeSeconds: 5 });
  });

  it('a human match records which agents people played and the AI teammate beside them', async () => {
    expect(replay.people).toEqual(people);
    const two = await humanReplay('random', 4, { ...DEFAULT_CONFIG, episodeSeconds: 1 }, 'bt-scripted', [0, 1]);
    expect(two.people).toEqual({ blue: { agents: [0, 1] } });
    expect(scripted.people).toBeUndefined();
  });

  it("with the person's agent recorded, every AI agent of the side is checked, the teammate's decisions derived again", () => {
    const result = verifyReplay(parseReplay(JSON.stringify(replay)));
    expect(result.ok).toBe(true);
    expect(result.sides.blue).toEqual({ checked: true, how: 'scripted skills', decisions: 'derived again' });
    expect(formatVerification(replay, result)).toContain('blue (human): actions follow its decisions (scripted skills); decisions: derived again');
  });

  it("a person who moves and shoots: the replay verifies, the person's actions taken as recorded", async () => {
    const moving = { read: (_w: unknown, _id: number, _slot: number, out: { move: number; turn: number; fire: number }) => ((out.move = 1), (out.turn = 0.3), (out.fire = 1)) };
    const match = await Match.create(
      { blue: 'human', red: 'heuristic', seed: 6, config: { ...DEFAULT_CONFIG, episodeSeconds: 5 } },
      { platform: TEST_PLATFORM, controllers: { blue: (ctx) => createHumanTeam(ctx, { teammate: 'bt-scripted', input: moving }) } },
    );
    while (!match.done) match.advance();
    const result = verifyReplay(match.replay());
    expect(result.ok).toBe(true);
    expect(result.sides.blue).toEqual({ checked: true, how: 'scripted skills', decisions: 'derived again' });
  });

  it("a tampered teammate action is caught without anyone saying who played; the person's are taken as recorded", () => {
    const insert = (row: ReplayFile['actions'][number]) => (c: ReplayFile) => c.actions.splice(c.actions.findIndex((r) => r[0] > row[0]), 0, row);
    const teammate = verifyReplay(edited(replay, insert([2, 1, -1, 0, 0, 0, 0])));
    expect(teammate.ok).toBe(false);
    expect(teammate.sides.blue.how).toBe('its actions do not follow its decisions');
    expect(teammate.problems.join('\n')).toMatch(/^blue 'human' with scripted skills: agent 1's action at tick 2 is \[move -1, /m);
    const person = verifyReplay(edited(replay, insert([2, 0, -1, 0, 0, 0, 0])));
    expect(person.problems.join('\n')).not.toMatch(/with scripted skills/);
  });

  it("an older file without the record still verifies as far as it can, saying the side's actions were not checked", () => {
    const old = parseReplay(JSON.stringify(withoutPeople(replay)));
    const result = verifyReplay(old);
    expect(result.ok).toBe(true);
    expect(result.sides.blue).toEqual({
      checked: false,
      how: 'not checked: people played blue and the file does not say which agents (an older replay; newer ones record it)',
      decisions: 'taken from the file (it does not name the AI teammate)',
    });
    expect(result.sides.red.checked).toBe(true);
    const told = verifyReplay(old, { people });
    expect(told.ok).toBe(true);
    expect(told.sides.blue).toMatchObject({ checked: true, how: 'scripted skills' });
    expect(told.summary.agents[0]!.skillSeconds).toEqual({});
  });

  it("a record that disagrees with the caller's plan, or names people on an AI side, is a problem", () => {
    const planned = verifyReplay(replay, { people: { blue: { agents: [1], teammate: 'bt-scripted' } } });
    expect(planned.ok).toBe(false);
    expect(planned.problems).toContain("people.blue: the file says people played agent 0 beside 'bt-scripted'; the match was planned with agent 1 beside 'bt-scripted'");
    const ai = verifyReplay(edited(scripted, (c) => (c.people = { blue: { agents: [0], teammate: 'bt-scripted' } })));
    expect(ai.ok).toBe(false);
    expect(ai.problems).toContain("people.blue says people played agent 0 beside 'bt-scripted', but teams.blue is 'bt-scripted', not 'human'");
    expect(ai.sides.blue).toMatchObject({ checked: true, how: 'scripted skills' });
  });

  it('a record naming an agent of the other side, or one twice, is refused on reading', () => {
    expect(() => parseReplay(JSON.stringify(edited(replay, (c) => (c.people = { blue: { agents: [2] } }))))).toThrow(/people\.blue\.agents names agent 2, which is not a blue agent/);
    expect(() => parseReplay(JSON.stringify(edited(replay, (c) => (c.people = { blue: { agents: [0, 0] } }))))).toThrow(/people\.blue\.agents names agent 0 twice/);
  });
});

describe('decisions derived again', () => {
  it("a bt replay relabelled as a persona is refused, naming the first tick and agent where the persona's tree decides otherwise", async () => {
    const relabelled = edited(trained, (c) => (c.teams.blue = 'bt:persona=cautious'));
    const result = await verifyReplayWithModels(relabelled, { models: TEST_PLATFORM.models });
    expect(result.ok).toBe(false);
    expect(result.resimulates).toBe(true);
    expect(result.sides.blue.decisions).toBe("derived again, and they differ from the file's");
    expect(result.problems.join('\n')).toMatch(/^blue 'bt:persona=cautious': its decisions are not its strategist's: at tick \d+ the file (gives|keeps) agent [01] '\w+'; its strategist (gives it|keeps it on) '\w+'$/m);
    // Without the trained skills the actions go unchecked, but the decisions are still derived again.
    expect(verifyReplay(relabelled).ok).toBe(false);
  });

  it('a relabelled random team is refused too: its choices come from its seed and period', () => {
    const result = verifyReplay(edited(scripted, (c) => (c.teams.red = 'random:period=1')));
    expect(result.ok).toBe(false);
    expect(result.problems.join('\n')).toMatch(/^red 'random:period=1': its decisions are not its strategist's: at tick \d+ /m);
  });

  it("a language model's decisions are taken from the file, and the result says so", () => {
    const asLlm = edited(scripted, (c) => {
      c.teams.red = 'llm';
      c.decisions = c.decisions.map((d) => (d.team === 1 ? { ...d, source: 'llm' } : d));
    });
    const result = verifyReplay(asLlm);
    expect(result.ok).toBe(true);
    expect(result.sides.red).toEqual({ checked: true, how: 'scripted skills', decisions: "taken from the file (a language model's decisions cannot be derived again without it)" });
    expect(formatVerification(asLlm, result)).toContain("red (llm): actions follow its decisions (scripted skills); decisions: taken from the file (a language model's decisions cannot be derived again without it)");
  });
});

describe('summaryProblems', () => {
  it('names each field a sent summary gets wrong', async () => {
    const match = await runMatch({ blue: 'heuristic', red: 'random', seed: 5 }, { platform: TEST_PLATFORM });
    const derived = verifyReplay(match.replay()).summary;
    expect(summaryProblems(match.summary(), derived)).toEqual([]);
    const lie = { ...match.summary(), winner: 'blue' as const, agents: match.summary().agents.map((a, i) => (i === 0 ? { ...a, kills: a.kills + 3 } : a)) };
    const problems = summaryProblems(lie, derived);
    expect(problems).toContain(`summary agents.0.kills: sent ${derived.agents[0]!.kills + 3}; the re-simulation gives ${derived.agents[0]!.kills}`);
    if (derived.winner !== 'blue') expect(problems).toContain(`summary winner: sent blue; the re-simulation gives ${derived.winner}`);
  });
});

describe('Match.withControllers (the loop verification drives)', () => {
  it('plays controllers built at once, and their decisions reach the metrics and the record', () => {
    const built: number[] = [];
    const match = Match.withControllers({ blue: 'still-blue', red: 'still-red', seed: 3 }, (world, onDecision) => {
      const still = (team: 0 | 1): TeamController => ({
        id: `still-${team === 0 ? 'blue' : 'red'}`,
        team,
        currentSkills: [null, null],
        act: (w) => {
          if (w.tick === 5 && team === 1) onDecision({ tick: w.tick, team, skills: ['secure', 'secure'], source: 'rule' });
        },
      });
      built.push(world.tick);
      return [still(0), still(1)];
    });
    expect(built).toEqual([0]);
    for (let i = 0; i < 10; i++) expect(match.advance()).toBeUndefined(); // nothing waits: it plays synchronously
    expect(match.world.tick).toBe(10);
    expect(match.summary().decisions).toEqual({ blue: 0, red: 1 });
    expect(match.replay().decisions).toEqual([{ tick: 5, team: 1, skills: ['secure', 'secure'], source: 'rule' }]);
    expect(match.replay().teams).toEqual({ blue: 'still-blue', red: 'still-red' });
  });
});
