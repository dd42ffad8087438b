/**
 * The strategist exam: the shipped set is what its command builds and what the rules say;
 * scores tell a model that reads the state from one that copies or repeats; the command
 * works on any chat client, and on the real local model in CI.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ChatClient, type ChatRequest, EXAM_SET_PATH, type ExamAnswer, type ExamReport, type ExamSet, choiceDivergence, examMarkdown, parseExamSet, referenceRows, scoreExam, takeExam } from '../../src/llm';
import { DEFAULT_LOCAL_MODEL, LOCAL_MODELS } from '../../src/llm/localModels';
import { EXAM_PAIRS, buildExamSet, plannerLabeller } from '../../src/match';
import { SKILLS, type SkillId } from '../../src/skills';
import { rulesChoice } from '../../src/teams';
import { TEST_PLATFORM } from '../helpers/platform';
import { describeWithLocalModel } from '../helpers/localModel';

const SHIPPED = EXAM_SET_PATH;
const shipped = parseExamSet(readFileSync(SHIPPED, 'utf8'), SHIPPED);
/** The first set, with the rules' labels only: still read (the rules-taught adapter's card was examined on it). */
const V1 = 'models/strategist-exam.v1.json';
const dir = mkdtempSync(join(tmpdir(), 'hillmind-exam-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const differs = (set: ExamSet) => set.items.filter((i) => i.situation.agents.some((a, s) => a.alive && i.current[s] !== i.rules[s]));

describe('the shipped exam set', () => {
  it('holds at least 500 situations from several team pairs, half of them held out, each labelled by the rules', () => {
    expect(shipped.items.length).toBeGreaterThanOrEqual(500);
    expect(new Set(shipped.items.map((i) => i.id)).size).toBe(shipped.items.length);
    const pairs = new Set(shipped.items.map((i) => i.from.split(', seed')[0]));
    expect(pairs.size).toBeGreaterThanOrEqual(5);
    expect(differs(shipped).length).toBeGreaterThanOrEqual(shipped.items.length / 2);
    for (const item of shipped.items) expect(rulesChoice(item.situation, item.current), item.id).toEqual(item.rules);
  });

  it("carries the planner's choice on every item (v2), and it is not the rules' everywhere", () => {
    expect([SHIPPED, shipped.version]).toEqual(['models/strategist-exam.v2.json', 2]);
    expect(shipped.items.every((i) => i.planner?.length === i.situation.agents.length)).toBe(true);
    const same = shipped.items.filter((i) => i.planner!.join() === i.rules.join()).length;
    expect(same).toBeGreaterThan(0);
    expect(same).toBeLessThan(shipped.items.length);
  });

  it("labels with the planner the very situations the rules label: the planner's hook adds a label and changes nothing else", async () => {
    const options = { size: 20, seeds: 1, every: 25, command: 'test' };
    const rulesOnly = await buildExamSet(TEST_PLATFORM, options);
    const planned = await buildExamSet(TEST_PLATFORM, { ...options, planner: plannerLabeller(TEST_PLATFORM) });
    expect([rulesOnly.version, planned.version]).toEqual([1, 2]);
    expect(planned.items.map(({ planner, ...rest }) => (expect(planner).toHaveLength(rest.situation.agents.length), rest))).toEqual(rulesOnly.items);
    expect(parseExamSet(JSON.stringify(planned), 'planned.json')).toEqual(planned);
  });

  it('reads v1 sets still, without planner scores', () => {
    const v1 = parseExamSet(readFileSync(V1, 'utf8'), V1);
    expect(v1.version).toBe(1);
    expect(v1.items.some((i) => i.planner !== undefined)).toBe(false);
    const set = { ...v1, items: v1.items.slice(0, 20) };
    expect(scoreExam(set, set.items.map((i) => ({ skills: i.rules, text: '', latencyMs: 1 }))).planner).toBeNull();
    expect(referenceRows(set).map((r) => r.name)).not.toContain('reference: the planner itself');
  });

  it('is what its command builds, to the byte, at a smaller size', async () => {
    const rebuilt = await buildExamSet(TEST_PLATFORM, { size: 40, seeds: 1, every: 25, command: 'test' });
    const again = await buildExamSet(TEST_PLATFORM, { size: 40, seeds: 1, every: 25, command: 'test' });
    expect(JSON.stringify(again)).toBe(JSON.stringify(rebuilt));
    expect(rebuilt.built.matches).toHaveLength(EXAM_PAIRS.length);
    expect(shipped.built.command).toMatch(/^npm run llm:exam -- --build-set/);
    // Other seeds give other situations (a set to train on, apart from the exam's).
    const other = await buildExamSet(TEST_PLATFORM, { size: 40, seeds: 1, firstSeed: 101, every: 25, command: 'test' });
    expect(other.built.matches[0]).toMatch(/seed 101$/);
    expect(other.items.map((i) => i.from)).not.toEqual(rebuilt.items.map((i) => i.from));
  });

  it('refuses a file that is not a set, naming it', () => {
    expect(() => parseExamSet('{"format": "hillmind-strategist-exam", "version": 9}', 'x.json')).toThrow(/^x\.json is not a strategist exam set \(hillmind-strategist-exam v1 to v2\) at version: /);
    const bad = { ...shipped, items: [{ ...shipped.items[0]!, rules: ['secure'] }] };
    expect(() => parseExamSet(JSON.stringify(bad), 'y.json')).toThrow(/^y\.json item 0 \(s0001\) gives skills for other than its 2 agents$/);
    const { planner: _, ...unplanned } = shipped.items[0]!;
    expect(() => parseExamSet(JSON.stringify({ ...shipped, items: [unplanned] }), 'z.json')).toThrow("z.json item 0 (s0001) lacks the planner's choice, which every item of a v2 set carries");
    expect(() => parseExamSet(JSON.stringify({ ...shipped, version: 1 }), 'w.json')).toThrow("w.json item 0 (s0001) carries the planner's choice, which v1 sets do not have");
  });
});

describe('exam scores', () => {
  const answer = (skills: readonly SkillId[] | null): ExamAnswer => ({ skills, text: '', latencyMs: 10 });

  it("give the rules kappa 1, copying nothing where the current skill differs, and a constant plan 100% of one answer", () => {
    const [rules, , copy, constant] = referenceRows(shipped).map((r) => r.scores);
    expect(rules!.kappa).toBe(1);
    expect(rules!.heldOut.agreement).toBe(1);
    expect(copy!.heldOut.agreement).toBe(0);
    expect(copy!.cmiBits).toBeCloseTo(0, 12);
    expect(rules!.cmiBits).toBeGreaterThan(0.5);
    expect(constant!.mostCommon).toEqual({ answer: 'navigate,secure', share: 1 });
    expect(constant!.skillShares.combat).toBe(0);
  });

  it('count an invalid answer as a wrong choice, and its share', () => {
    const set = { ...shipped, items: shipped.items.slice(0, 4) };
    const scores = scoreExam(set, [answer(null), ...set.items.slice(1).map((i) => answer(i.rules))]);
    expect(scores.valid).toBe(0.75);
    expect(scores.agreement).toBeLessThan(1);
    expect(scores.skillShares.invalid).toBeGreaterThan(0);
    expect(scores.latencyMs).toEqual({ p50: 10, p95: 10 });
  });
});

describe("the exam's planner columns", () => {
  it('score the same choices against the planner: the planner agrees with itself, and the rules agree with it as often as it with them', () => {
    const rows = referenceRows(shipped);
    expect(rows.map((r) => r.name)).toEqual(['reference: the rules themselves', 'reference: the planner itself', 'reference: keep the current skills', 'reference: always navigate, secure']);
    const [rules, planner] = rows.map((r) => r.scores);
    expect(planner!.planner).toMatchObject({ agreement: 1, kappa: 1, heldOut: { agreement: 1, kappa: 1 } });
    // Living agents' choices where the tree and the planner agree, counted by hand.
    const living = shipped.items.flatMap((i) => i.situation.agents.flatMap((a, s) => (a.alive ? [[i.rules[s], i.planner![s], i.current[s]]] : [])));
    const agree = living.filter(([r, p]) => r === p).length / living.length;
    expect(rules!.planner!.agreement).toBeCloseTo(agree, 12);
    expect(planner!.agreement).toBeCloseTo(agree, 12);
    expect(agree).toBeGreaterThan(0.3);
    expect(agree).toBeLessThan(0.95);
    // Held out: the same agents as the rules' held-out part (current skill differs from the rules' choice).
    const held = living.filter(([r, , c]) => c !== r);
    expect(rules!.planner!.heldOut.agreement).toBeCloseTo(held.filter(([r, p]) => r === p).length / held.length, 12);
  });

  it('stand beside the rules\' columns in the table', () => {
    const set = { ...shipped, items: shipped.items.slice(0, 30) };
    const scores = scoreExam(set, set.items.map((i) => ({ skills: i.planner!, text: '', latencyMs: 10 })));
    const report: ExamReport = { format: 'hillmind-strategist-exam-report', set: { version: 2, situations: 30 }, model: 'm', provider: 'p', answerFormat: 'compact', scores, references: referenceRows(set), answers: [] };
    const lines = examMarkdown(report).split('\n');
    const header = lines.find((l) => l.startsWith('| who |'))!.split(' | ');
    expect(header.slice(1, 10)).toEqual(['valid', 'agreement', 'kappa', 'held-out agreement', 'held-out kappa', 'planner agreement', 'planner kappa', 'planner held-out agreement', 'planner held-out kappa']);
    const cells = lines.find((l) => l.startsWith('| **m** |'))!.split(' | ');
    expect([cells[6], cells[7]]).toEqual(['100.0%', '1.000']);
    expect(lines.filter((l) => l.startsWith('| ')).every((l) => l.split(' | ').length === header.length)).toBe(true);
    expect(lines.find((l) => l.startsWith('|---'))!.split('---').length - 1).toBe(header.length);
  });
});

describe('the exam report', () => {
  it('prints its figures as every report does: shares with one decimal, a kappa that has no value as "-"', () => {
    // Situations where every current skill is the rules' choice: nothing held out, so the held-out kappa has no value.
    const same = shipped.items.filter((i) => !differs({ ...shipped, items: [i] }).length).slice(0, 4);
    const set = { ...shipped, items: same };
    const scores = scoreExam(set, set.items.map((i) => ({ skills: i.rules, text: '', latencyMs: 10 })));
    const report: ExamReport = { format: 'hillmind-strategist-exam-report', set: { version: 1, situations: 4 }, model: 'm', provider: 'p', answerFormat: 'compact', scores, references: [], answers: [] };
    const cells = examMarkdown(report).split('\n').find((l) => l.startsWith('| **m** |'))!.split(' | ');
    expect(scores.heldOut.kappa).toBeNull();
    expect([cells[1], cells[2], cells[5]]).toEqual(['100.0%', '100.0%', '-']); // valid, agreement, held-out kappa
  });
});

describe('takeExam', () => {
  it('asks each situation through the match prompt and times each answer on the clock given', async () => {
    const set = { ...shipped, items: shipped.items.slice(0, 12) };
    const seen: ChatRequest[] = [];
    let now = 0;
    // A model that answers the rules' choice, read back from the prompt's situation, 7 ms later.
    const byPrompt = new Map(set.items.map((i) => [i.id, i]));
    let k = 0;
    const client: ChatClient = {
      model: 'rules-reader',
      async complete(request) {
        seen.push(request);
        now += 7;
        const item = byPrompt.get(set.items[k++]!.id)!;
        return { text: item.rules.map((s) => SKILLS[s].number).join(',') };
      },
    };
    const answers = await takeExam(set, client, { format: 'compact', temperature: 0.1, clock: { now: () => now } as never });
    expect(seen).toHaveLength(12);
    expect(seen[0]!.messages[1]!.content).toMatch(/^Agent 1: /);
    expect(answers.every((a) => a.latencyMs === 7)).toBe(true);
    const scores = scoreExam(set, answers);
    expect(scores.kappa).toBe(1);
    expect(scores.valid).toBe(1);
  });
});

/** npm run llm:exam with these arguments, on one thread. */
function exam(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/llmExam.ts', ...args], { timeout: 120_000, env: { ...process.env, LLM_THREADS: '1' } }, (err, stdout, stderr) =>
      done({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('npm run llm:exam --personas', () => {
  it('refuses an unknown persona, or one alone, saying what it takes, before any model loads', async () => {
    const unknown = await exam(['--personas', 'aggressive,sneaky']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/--personas: unknown persona 'sneaky' \(aggressive, cautious, /);
    const alone = await exam(['--personas', 'aggressive']);
    expect(alone.stderr).toContain('--personas needs two or more personas to compare');
  }, 60_000);

  it('measures how far apart two exams\' choices lie: 0 bits for the same shares, 1 for choices that never meet', () => {
    expect(choiceDivergence({ secure: 0.5, combat: 0.5 }, { combat: 0.5, secure: 0.5 })).toBe(0);
    expect(choiceDivergence({ secure: 1 }, { combat: 1, invalid: 0 })).toBeCloseTo(1, 12);
  });
});

describeWithLocalModel('npm run llm:exam on the local model')('npm run llm:exam on the local model', () => {
  it('answers, scores and writes its table and JSON', async () => {
    const out = join(dir, 'out');
    const run = await exam(['--limit', '12', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Strategist exam v2: 12 situations/);
    expect(run.stdout).toMatch(/\| \*\*gemma-3-270m-q4_k_m-strategist\+strategist-gemma3-270m@[0-9a-f]{8}\*\* \| \d+\.\d% \|/);
    // Beside the rules' columns, the planner's; and the planner's own reference row.
    expect(run.stdout).toContain('| planner agreement | planner kappa | planner held-out agreement | planner held-out kappa |');
    expect(run.stdout).toMatch(/\| reference: the planner itself \| 100\.0% \|/);
    // Asked in the format its shipped adapter was taught.
    const format = LOCAL_MODELS[DEFAULT_LOCAL_MODEL]!.adapterFormat!;
    const written = readdirSync(out).find((f) => new RegExp(`^exam-gemma-3-270m-q4_k_m-strategist_strategist-gemma3-270m_[0-9a-f]{8}-${format}\\.json$`).test(f));
    expect(written).toBeDefined();
    const report = JSON.parse(readFileSync(join(out, written!), 'utf8')) as { answers: unknown[]; scores: { latencyMs: { p50: number } } };
    expect(report.answers).toHaveLength(12);
    expect(report.scores.latencyMs.p50).toBeGreaterThan(0);
  }, 150_000);

  it("takes the exam under each persona's style and says how far apart their choices lie", async () => {
    const out = join(dir, 'personas');
    const run = await exam(['--limit', '6', '--personas', 'aggressive,zone-camper', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(', persona aggressive.');
    expect(run.stdout).toContain(', persona zone-camper.');
    expect(run.stdout).toMatch(/\| aggressive \| zone-camper \| \d\.\d{3} \|/);
    const written = readdirSync(out).filter((f) => f.endsWith('.json'));
    expect(written).toHaveLength(2);
    expect(written.some((f) => f.endsWith('-aggressive.json')) && written.some((f) => f.endsWith('-zone-camper.json'))).toBe(true);
  }, 150_000);
});
