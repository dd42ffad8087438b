/**
 * How far the planner agrees with itself, and so how far a student of its labels can be
 * expected to agree with them. The planner plays a few noisy rollouts per option (weapon
 * spread draws from a stream seeded per planner), so at one world two planners with other
 * seeds may choose otherwise: a label is part choice, part chance.
 *
 * The exam's matches are played again (match/examSet.ts buildExamSet, the set's own options),
 * and at each situation's world the planner is asked again:
 *   - with its own settings and another seed: how often a second draw of the same teacher
 *     gives the set's label;
 *   - with more rollouts per option, under two seeds: whether a costlier teacher is steadier
 *     (agreement of the two), and how often its choice, nearer the planner's most likely one,
 *     is the set's label. A student that read the world as well as that planner would agree
 *     about as often; one that reads the prompt's bands has less to go on.
 * Scored as the exam scores a model: every living agent's choice, agreement and Cohen's kappa.
 */
import { EXAM_FORMAT, EXAM_VERSION, type ExamItem, type ExamSet, scoreExam } from '../llm';
import { type PlayedMoment, buildExamSet, plannerLabeller, sideSeed } from '../match';
import { TEAM_NAMES } from '../sim';
import type { SkillId } from '../skills';
import { num, pct } from '../report/format';
import { PLANNER_DEFAULTS, type Platform, type PlannerSettings, plannerChoice } from '../teams';

/** Agreement of two labellings over every living agent's choice. */
export interface LabelAgreement {
  readonly name: string;
  /** What its choices are held against. */
  readonly against: string;
  readonly choices: number;
  readonly agreement: number;
  readonly kappa: number | null;
}

export interface PlannerConsistency {
  readonly situations: number;
  readonly rollouts: number;
  readonly rows: readonly LabelAgreement[];
}

export interface ConsistencyOptions {
  /** The set's options: the matches are played again with them, and every situation must come back as the set holds it. */
  readonly size: number;
  readonly seeds: number;
  /** The costlier planner's rollouts per option. */
  readonly rollouts: number;
  readonly onMatch?: (done: number, total: number) => void;
  readonly onLabel?: (done: number, total: number) => void;
}

/** The planner's choices at one world: the set's label, and the others asked there. */
interface Asked {
  readonly item: ExamItem;
  readonly again: readonly SkillId[];
  readonly costly: readonly SkillId[];
  readonly costlyAgain: readonly SkillId[];
}

const LABEL = "the set's planner label";

const notTheSet = (which: string) =>
  new Error(`the exam's matches played again do not give its set (${which}): the set was built with other options or by other code; build it again (npm run llm:exam -- --build-set) or pass its --size and --seeds`);

/** The set's sampling interval, as its \`built.every\` says it ("25 ticks"). */
function ticksBetweenSamples(set: ExamSet): number {
  const every = /^(\d+) ticks$/.exec(set.built.every);
  if (!every) throw new Error(`the exam set says it sampled every '${set.built.every}': expected "<n> ticks"`);
  return Number(every[1]);
}

/** The planner's own seeds for the labels asked again: derived from the match seed like the set's, under other names. */
const otherSeed = (m: PlayedMoment, name: string) => sideSeed(m.seed, TEAM_NAMES[m.team], name);

export async function plannerConsistency(platform: Platform, set: ExamSet, options: ConsistencyOptions): Promise<PlannerConsistency> {
  const costly: PlannerSettings = { ...PLANNER_DEFAULTS, rollouts: options.rollouts };
  const setLabel = plannerLabeller(platform);
  const asked: Omit<Asked, 'item'>[] = [];
  const ask = (m: PlayedMoment, name: string, settings: PlannerSettings) =>
    plannerChoice(platform, m.world, m.team, m.current, { seed: otherSeed(m, name), settings, opponentSkills: m.opponentSkills });
  const again = await buildExamSet(platform, {
    size: options.size,
    seeds: options.seeds,
    every: ticksBetweenSamples(set),
    command: set.built.command,
    planner: async (m) => {
      // The set's own label, as the set was built: a set these matches do not give is refused at its first label.
      const label = await setLabel(m);
      const item = set.items[asked.length];
      if (item && JSON.stringify(item.planner) !== JSON.stringify(label)) throw notTheSet(`situation ${item.id}'s planner label came back otherwise`);
      asked.push({ again: await ask(m, 'planner-again', PLANNER_DEFAULTS), costly: await ask(m, 'planner-costly', costly), costlyAgain: await ask(m, 'planner-costly-again', costly) });
      return label;
    },
    ...(options.onMatch ? { onMatch: options.onMatch } : {}),
    ...(options.onLabel ? { onLabel: options.onLabel } : {}),
  });
  const differs = again.items.findIndex((item, i) => JSON.stringify(item) !== JSON.stringify(set.items[i]));
  if (again.items.length !== set.items.length || differs >= 0) {
    throw notTheSet(differs >= 0 ? `situation ${set.items[differs]?.id ?? differs + 1} came back otherwise` : `${again.items.length} situations came back, the set holds ${set.items.length}`);
  }
  const rows: Asked[] = again.items.map((item, i) => ({ item, ...asked[i]! }));
  const labels = rows.map((r) => r.item.planner!);
  return {
    situations: rows.length,
    rollouts: options.rollouts,
    rows: [
      agreementOf('the planner at its defaults, another seed', LABEL, rows, labels, rows.map((r) => r.again)),
      agreementOf(`the planner with ${options.rollouts} rollouts an option`, LABEL, rows, labels, rows.map((r) => r.costly)),
      agreementOf(`the planner with ${options.rollouts} rollouts an option`, 'itself under another seed', rows, rows.map((r) => r.costly), rows.map((r) => r.costlyAgain)),
      agreementOf('the rules (the tree)', LABEL, rows, labels, rows.map((r) => r.item.rules)),
    ],
  };
}

/**
 * How often `chosen` (per situation, a skill per agent) is `labels`' choice, scored as the exam
 * scores a model against the planner (llm/exam.ts scoreExam: every living agent's choice).
 */
function agreementOf(name: string, against: string, rows: readonly Asked[], labels: readonly (readonly SkillId[])[], chosen: readonly (readonly SkillId[])[]): LabelAgreement {
  const set: ExamSet = { format: EXAM_FORMAT, version: EXAM_VERSION, built: { command: '', matches: [], every: '' }, items: rows.map((r, i) => ({ ...r.item, planner: [...labels[i]!] })) };
  const scores = scoreExam(set, chosen.map((skills) => ({ skills, text: skills.join(','), latencyMs: 0 })), false);
  return { name, against, choices: scores.choices, agreement: scores.planner!.agreement, kappa: scores.planner!.kappa };
}

/** The rows as a markdown table. */
export function consistencyMarkdown(c: PlannerConsistency): string {
  return [
    `How far the planner agrees with itself, on the exam's ${c.situations} situations (every living agent's choice; ${c.rows[0]?.choices ?? 0} choices):`,
    '',
    '| labeller | against | agreement | kappa |',
    '|---|---|---|---|',
    ...c.rows.map((r) => `| ${r.name} | ${r.against} | ${pct(r.agreement)} | ${num(r.kappa, 3)} |`),
  ].join('\n');
}
