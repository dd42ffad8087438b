/**
 * The strategist exam: does a language model's choice follow the game? A fixed, versioned
 * set of situations taken from real matches (models/strategist-exam.v2.json, built by
 * match/examSet.ts), each with the team's current skills, the rules' choice per agent (the
 * rules the system prompt states, as the study's tree applies them) and, from v2, the
 * planner's choice at the world it was taken from (teams/planner.ts plannerChoice: the
 * player that beats the tree, looking ahead where the rules look at words). A model answers
 * every situation through the same prompt a match sends; the scores say how far its
 * choices follow the rules, and whether they do so by reading the state or by copying the
 * current skill:
 * - agreement and Cohen's kappa with the rules, over every living agent's choice;
 * - the same on the held-out part: agents whose current skill differs from the rules'
 *   choice, where copying scores nothing;
 * - I(choice; rules | current skill) in bits: what the choice says of the rules beyond the
 *   current skill;
 * - the share of the most common answer (a constant plan scores 100%), per-skill shares,
 *   valid answers, and latency p50/p95;
 * - agreement and kappa with the planner on the same choices (held out: the same agents).
 * Reference rows (the rules themselves, the planner itself, copying the current skills, a
 * constant answer) come beside every model so a score can be read: the rules' row against
 * the planner says how often the tree and the planner agree, the most an adapter taught by
 * the rules alone can be expected to reach there.
 */
import { z } from 'zod';
import { num, pct } from '../report/format';
import { type GameConfig, DEFAULT_CONFIG, type TeamSituation } from '../sim';
import { SKILL_IDS, type SkillId } from '../skills';
import { cohenKappa, conditionalMutualInformation, jensenShannonDivergence, percentile } from '../stats';
import { parseAnswer } from './answer';
import type { ChatClient } from './chat';
import type { Clock } from './clock';
import { type AnswerFormat, buildRequest } from './prompt';

export const EXAM_FORMAT = 'hillmind-strategist-exam';
/** The shipped set: a product artifact beside the models it judges. */
export const EXAM_SET_PATH = 'models/strategist-exam.v2.json';
/** v2 adds the planner's choice to every item; v1 sets (the same situations, the rules' labels only) are still read. */
export const EXAM_VERSION = 2;

const band = z.enum(['NEAR', 'MID', 'FAR']);
const agentSituation = z.strictObject({
  agent: z.number().int().min(0),
  alive: z.boolean(),
  health: z.enum(['HIGH', 'MEDIUM', 'LOW']),
  zone: band,
  inZone: z.boolean(),
  enemyVisible: z.boolean(),
  enemy: band.nullable(),
  pickupPresent: z.boolean(),
  pickup: band.nullable(),
});
const situationSchema = z.strictObject({
  team: z.union([z.literal(0), z.literal(1)]),
  teamName: z.enum(['blue', 'red']),
  agents: z.array(agentSituation).min(1).max(8),
  allyDistance: band.nullable(),
  time: z.enum(['PLENTY', 'LIMITED', 'URGENT']),
  secondsLeft: z.number().min(0),
  progressPercent: z.number().min(0).max(100),
  enemyProgressPercent: z.number().min(0).max(100),
  zoneStatus: z.enum(['empty', 'blue', 'red', 'contested']),
}) satisfies z.ZodType<TeamSituation>;
const skills = z.array(z.enum(SKILL_IDS)).min(1).max(8);

const examSetSchema = z.strictObject({
  format: z.literal(EXAM_FORMAT),
  version: z.union([z.literal(1), z.literal(EXAM_VERSION)]),
  /** How the set was made: the command, and the matches it sampled. */
  built: z.strictObject({ command: z.string(), matches: z.array(z.string()), every: z.string() }),
  items: z
    .array(
      z.strictObject({
        id: z.string(),
        /** The match, tick and side it was taken from. */
        from: z.string(),
        situation: situationSchema,
        current: skills,
        rules: skills,
        /** The planner's choice at the world (v2 on). */
        planner: skills.optional(),
      }),
    )
    .min(1)
    .max(100_000),
});
export type ExamSet = z.infer<typeof examSetSchema>;
export type ExamItem = ExamSet['items'][number];

/** Read and check an exam set's JSON; throws naming the file and what is wrong. */
export function parseExamSet(text: string, source: string): ExamSet {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${source} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = examSetSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${source} is not a strategist exam set (${EXAM_FORMAT} v1 to v${EXAM_VERSION}) at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  const planned = parsed.data.version >= 2;
  parsed.data.items.forEach((item, i) => {
    const n = item.situation.agents.length;
    if (item.current.length !== n || item.rules.length !== n || (item.planner && item.planner.length !== n)) throw new Error(`${source} item ${i} (${item.id}) gives skills for other than its ${n} agents`);
    if (planned !== (item.planner !== undefined)) {
      throw new Error(`${source} item ${i} (${item.id}) ${planned ? "lacks the planner's choice, which every item of a v2 set carries" : "carries the planner's choice, which v1 sets do not have"}`);
    }
  });
  return parsed.data;
}

/** One answer to one item: the skills chosen, or null when the answer was not valid. */
export interface ExamAnswer {
  readonly skills: readonly SkillId[] | null;
  /** The model's text, for inspection. */
  readonly text: string;
  readonly latencyMs: number;
}

export interface ExamScores {
  readonly situations: number;
  /** Living agents' choices scored (an eliminated agent's choice does not matter). */
  readonly choices: number;
  /** Share of situations answered validly. */
  readonly valid: number;
  readonly agreement: number;
  /** null where undefined (one side always gave one label). */
  readonly kappa: number | null;
  readonly heldOut: { readonly choices: number; readonly agreement: number; readonly kappa: number | null };
  /** The same choices against the planner's labels (held out: the same agents); null for a set without them (v1). */
  readonly planner: AgreementScores | null;
  /** I(choice; rules' label | current skill), bits. */
  readonly cmiBits: number;
  /** The most common whole answer ("navigate,secure") and its share of the situations. */
  readonly mostCommon: { readonly answer: string; readonly share: number };
  /** Share of living agents' choices per skill (invalid answers as 'invalid'). */
  readonly skillShares: Readonly<Record<string, number>>;
  /** null for reference rows, which take no time. */
  readonly latencyMs: { readonly p50: number; readonly p95: number } | null;
}

/** Agreement with one teacher's labels, over every living agent and over the held-out ones. */
export interface AgreementScores {
  readonly agreement: number;
  readonly kappa: number | null;
  readonly heldOut: { readonly agreement: number; readonly kappa: number | null };
}

const INVALID = 'invalid';

const agreementOf = (a: readonly string[], b: readonly string[]) => (a.length === 0 ? 0 : a.filter((x, i) => x === b[i]).length / a.length);

/** Score answers (one per item, in order) against the set's rules. */
export function scoreExam(set: ExamSet, answers: readonly ExamAnswer[], timed = true): ExamScores {
  if (answers.length !== set.items.length) throw new Error(`scoreExam: ${answers.length} answers for ${set.items.length} items`);
  const chosen: string[] = [];
  const label: string[] = [];
  const current: string[] = [];
  const heldChosen: string[] = [];
  const heldLabel: string[] = [];
  const planned = set.items.every((item) => item.planner !== undefined);
  const plannerLabel: string[] = [];
  const heldPlanner: string[] = [];
  const whole = new Map<string, number>();
  let valid = 0;
  set.items.forEach((item, i) => {
    const answer = answers[i]!;
    if (answer.skills) valid++;
    const key = answer.skills ? answer.skills.join(',') : INVALID;
    whole.set(key, (whole.get(key) ?? 0) + 1);
    item.situation.agents.forEach((agent, slot) => {
      if (!agent.alive) return;
      const choice = answer.skills?.[slot] ?? INVALID;
      chosen.push(choice);
      label.push(item.rules[slot]!);
      current.push(item.current[slot]!);
      if (planned) plannerLabel.push(item.planner![slot]!);
      if (item.current[slot] !== item.rules[slot]) {
        heldChosen.push(choice);
        heldLabel.push(item.rules[slot]!);
        if (planned) heldPlanner.push(item.planner![slot]!);
      }
    });
  });
  const agreement = agreementOf;
  const [answer, count] = [...whole.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]!;
  const skillShares: Record<string, number> = {};
  for (const skill of [...SKILL_IDS, INVALID]) {
    const n = chosen.filter((c) => c === skill).length;
    if (n > 0 || skill !== INVALID) skillShares[skill] = chosen.length ? n / chosen.length : 0;
  }
  const latencies = answers.map((a) => a.latencyMs);
  return {
    situations: set.items.length,
    choices: chosen.length,
    valid: valid / set.items.length,
    agreement: agreement(chosen, label),
    kappa: cohenKappa(chosen, label),
    heldOut: { choices: heldChosen.length, agreement: agreement(heldChosen, heldLabel), kappa: heldChosen.length ? cohenKappa(heldChosen, heldLabel) : null },
    planner: planned
      ? {
          agreement: agreement(chosen, plannerLabel),
          kappa: cohenKappa(chosen, plannerLabel),
          heldOut: { agreement: agreement(heldChosen, heldPlanner), kappa: heldChosen.length ? cohenKappa(heldChosen, heldPlanner) : null },
        }
      : null,
    cmiBits: conditionalMutualInformation(chosen, label, current),
    mostCommon: { answer, share: count / set.items.length },
    skillShares,
    latencyMs: timed ? { p50: percentile(latencies, 50), p95: percentile(latencies, 95) } : null,
  };
}

/**
 * Rows that need no model, so a model's scores can be read: the rules (whose planner columns
 * say how often the tree and the planner agree), the planner (where the set has its labels),
 * copying, a constant plan.
 */
export function referenceRows(set: ExamSet): { readonly name: string; readonly scores: ExamScores }[] {
  const answer = (skills: readonly SkillId[]): ExamAnswer => ({ skills, text: skills.join(','), latencyMs: 0 });
  const planned = set.items.every((i) => i.planner !== undefined);
  return [
    { name: 'reference: the rules themselves', scores: scoreExam(set, set.items.map((i) => answer(i.rules)), false) },
    ...(planned ? [{ name: 'reference: the planner itself', scores: scoreExam(set, set.items.map((i) => answer(i.planner!)), false) }] : []),
    { name: 'reference: keep the current skills', scores: scoreExam(set, set.items.map((i) => answer(i.current)), false) },
    { name: 'reference: always navigate, secure', scores: scoreExam(set, set.items.map((i) => answer(i.current.map((_, s) => (s === 0 ? 'navigate' : 'secure')))), false) },
  ];
}

export interface ExamOptions {
  readonly format: AnswerFormat;
  readonly temperature: number;
  readonly clock: Clock;
  readonly config?: GameConfig;
  /** A persona's play style, in the system prompt (prompt.ts systemPrompt). */
  readonly style?: string;
  /** Told after every item. */
  readonly onProgress?: (done: number, total: number) => void;
}

/** Ask the model every item, one at a time (so latency is the model's alone). */
export async function takeExam(set: ExamSet, client: ChatClient, options: ExamOptions): Promise<ExamAnswer[]> {
  const answers: ExamAnswer[] = [];
  for (const item of set.items) {
    const request = buildRequest(item.situation, item.current, {
      format: options.format,
      temperature: options.temperature,
      config: options.config ?? DEFAULT_CONFIG,
      ...(options.style !== undefined ? { style: options.style } : {}),
    });
    const started = options.clock.now();
    let text = '';
    try {
      text = (await client.complete(request, new AbortController().signal)).text;
    } catch (err) {
      text = `(call failed: ${(err as Error).message})`;
    }
    const latencyMs = options.clock.now() - started;
    const parsed = parseAnswer(text, item.situation.agents.length);
    answers.push({ skills: parsed.ok ? parsed.skills : null, text, latencyMs });
    options.onProgress?.(answers.length, set.items.length);
  }
  return answers;
}

export interface ExamReport {
  readonly format: 'hillmind-strategist-exam-report';
  readonly set: { readonly version: number; readonly situations: number };
  readonly model: string;
  readonly provider: string;
  readonly answerFormat: AnswerFormat;
  /** The persona whose play style the system prompt carried; absent for the study's prompt. */
  readonly persona?: string;
  readonly scores: ExamScores;
  readonly references: { readonly name: string; readonly scores: ExamScores }[];
  /** Every answer, in item order, with the item's id. */
  readonly answers: (ExamAnswer & { readonly id: string })[];
}

/**
 * The report as a markdown table: the model's row, then the reference rows. With the
 * planner's labels, its four columns follow the rules' four, on the same choices.
 */
export function examMarkdown(report: ExamReport): string {
  const planned = report.scores.planner !== null;
  const plannerHeader = planned ? ' planner agreement | planner kappa | planner held-out agreement | planner held-out kappa |' : '';
  const header = `| who | valid | agreement | kappa | held-out agreement | held-out kappa |${plannerHeader} CMI (bits) | most common answer | combat | latency p50 / p95 |`;
  const plannerCells = (p: AgreementScores | null) => (planned ? ` ${p ? `${pct(p.agreement)} | ${num(p.kappa, 3)} | ${pct(p.heldOut.agreement)} | ${num(p.heldOut.kappa, 3)}` : '- | - | - | -'} |` : '');
  const row = (name: string, s: ExamScores) =>
    `| ${name} | ${pct(s.valid)} | ${pct(s.agreement)} | ${num(s.kappa, 3)} | ${pct(s.heldOut.agreement)} | ${num(s.heldOut.kappa, 3)} |${plannerCells(s.planner)} ${num(s.cmiBits, 3)} | ${s.mostCommon.answer} (${pct(s.mostCommon.share)}) | ${pct(s.skillShares.combat ?? 0)} | ${s.latencyMs ? `${Math.round(s.latencyMs.p50)} / ${Math.round(s.latencyMs.p95)} ms` : '-'} |`;
  const columns = planned ? 14 : 10;
  return [
    `Strategist exam v${report.set.version}: ${report.set.situations} situations, ${report.scores.choices} choices of living agents, ${report.scores.heldOut.choices} held out (current skill differs from the rules' choice).`,
    ...(planned ? ["Agreement and kappa with the rules' choice, then with the planner's at the same situations (held out: the same agents); the rules' row against the planner says how often the tree and the planner agree."] : []),
    `Model ${report.model} (${report.provider}), ${report.answerFormat} answers${report.persona ? `, persona ${report.persona}` : ''}.`,
    '',
    header,
    `|${'---|'.repeat(columns)}`,
    row(`**${report.model}**`, report.scores),
    ...report.references.map((r) => row(r.name, r.scores)),
    '',
    `Skill shares (${report.model}): ${Object.entries(report.scores.skillShares).map(([k, v]) => `${k} ${pct(v)}`).join(', ')}.`,
  ].join('\n');
}

/**
 * How far two exams' choices lie apart: the Jensen-Shannon divergence (bits) of their
 * skill shares over living agents' valid choices. Two personas' exams on the same
 * situations say whether a persona moves the model's choices (0: not at all, 1: apart).
 */
export function choiceDivergence(a: ExamScores['skillShares'], b: ExamScores['skillShares']): number {
  const shares = (s: ExamScores['skillShares']) => SKILL_IDS.map((id) => s[id] ?? 0);
  return jensenShannonDivergence(shares(a), shares(b));
}
