/**
 * The study's analysis on the stored rows (src/stats does the arithmetic):
 * - forced choice: counts per team, chi-square against uniform with Cramer's V, and the
 *   exact multinomial p (the counts are small);
 * - Likert items per team: n, mean, median, SD; the Friedman test over teams on the
 *   participants who rated every team; pairwise Wilcoxon signed-rank tests with Holm's
 *   correction;
 * - AI win rate against the participants per team, with 95% Wilson intervals;
 * - order effects: ratings and AI win rate by block position, with a Friedman test over
 *   positions;
 * - observer judgements: humanness (share judged human) per team type and for people, with
 *   Wilson intervals, beside BotPrize 2012's reference figures;
 * - the free-text answers, background answers, and how many replays did not verify (their
 *   episodes are left out of every figure, and counted).
 */
import {
  type ProportionInterval,
  chiSquareGoodnessOfFit,
  MIN_EXPECTED,
  SIGNED_RANK_MINIMUM,
  exactMultinomialTest,
  exactUniformMinimum,
  friedmanMinimum,
  friedmanTest,
  holmAdjust,
  mean,
  percentile,
  standardDeviation,
  tooFewReason,
  wilcoxonSignedRank,
  wilsonInterval,
} from '../stats';
import { teamLabel } from './config';
import { STUDY_BLOCK } from './flow';
import type { AnswerRecord, StudyData } from './store';

export interface FriedmanSummary {
  readonly n: number;
  readonly statistic: number;
  readonly df: number;
  readonly p: number;
  readonly kendallW: number;
}

export interface ForcedChoiceAnalysis {
  readonly n: number;
  readonly counts: readonly { readonly team: string; readonly count: number }[];
  /** Against uniform; null below `minimum.chiSquare` choices (see `withheld`). */
  readonly chiSquare: { readonly statistic: number; readonly df: number; readonly p: number; readonly cramersV: number } | null;
  /** The exact multinomial p; null below `minimum.exact` choices. */
  readonly exactP: number | null;
  /** Choices (one per participant) each test needs before it is given. */
  readonly minimum: { readonly chiSquare: number; readonly exact: number };
  /** Which test is not given yet and why, in words (null when both are given, or no one has chosen). */
  readonly withheld: string | null;
  readonly reasons: readonly { readonly participant: number; readonly team: string; readonly label: string; readonly reason: string }[];
}

export interface LikertAnalysis {
  readonly item: string;
  readonly prompt: string;
  readonly points: number;
  readonly perTeam: readonly { readonly team: string; readonly n: number; readonly mean: number | null; readonly median: number | null; readonly sd: number | null }[];
  /** Over teams, on the people who rated every team; null below `friedmanNeeds` of them (see `friedmanWithheld`). */
  readonly friedman: FriedmanSummary | null;
  readonly friedmanNeeds: number;
  /** Why the Friedman test is not given, in words (null when it is). */
  readonly friedmanWithheld: string | null;
  readonly pairwise: readonly PairwiseTest[];
}

/**
 * A Wilcoxon signed-rank test of two teams' ratings by the people who rated both. Given only
 * from SIGNED_RANK_MINIMUM people who rated the two differently (n counts them); otherwise
 * the figures are null and `withheld` says why. Holm's correction runs over the given tests.
 */
export interface PairwiseTest {
  readonly a: string;
  readonly b: string;
  /** People who rated both teams differently (ties are dropped, as the test does). */
  readonly n: number;
  readonly statistic: number | null;
  readonly p: number | null;
  readonly pHolm: number | null;
  readonly rankBiserial: number | null;
  readonly withheld: string | null;
}

export interface WinRate {
  readonly team: string;
  readonly episodes: number;
  readonly aiWins: number;
  readonly draws: number;
  readonly participantWins: number;
  /** AI wins / episodes with a 95% Wilson interval (null without episodes). */
  readonly rate: ProportionInterval | null;
}

export interface OrderAnalysis {
  readonly item: string;
  readonly positions: readonly { readonly position: number; readonly label: string; readonly n: number; readonly mean: number | null }[];
  readonly friedman: FriedmanSummary | null;
  readonly friedmanNeeds: number;
  readonly friedmanWithheld: string | null;
}

export interface Humanness {
  /** "human" or a team id. */
  readonly type: string;
  readonly judgements: number;
  readonly judgedHuman: number;
  readonly rate: ProportionInterval | null;
}

/** BotPrize 2012 (Unreal Tournament 2004): share of judgements "human". */
export const BOTPRIZE_2012 = { bestBots: [0.522, 0.519], humans: 0.414 } as const;

export interface StudyAnalysis {
  readonly study: { readonly id: string; readonly title: string; readonly kind: string; readonly teams: readonly string[]; readonly episodesPerBlock: number; readonly createdAt: string };
  readonly participants: { readonly started: number; readonly completed: number };
  readonly forcedChoice: ForcedChoiceAnalysis;
  readonly likert: readonly LikertAnalysis[];
  readonly winRates: readonly WinRate[];
  readonly order: readonly OrderAnalysis[];
  readonly orderWinRates: readonly (WinRate & { readonly position: number })[];
  readonly open: readonly { readonly team: string; readonly item: string; readonly answers: readonly string[] }[];
  readonly background: readonly { readonly item: string; readonly prompt: string; readonly counts: readonly { readonly option: string; readonly count: number }[] }[];
  readonly observer: { readonly participants: number; readonly judgements: number; readonly types: readonly Humanness[] } | null;
  /** played: verified block episodes (what the win rates count); excluded: block episodes left out as unverified. */
  readonly episodes: { readonly played: number; readonly practice: number; readonly unverified: number; readonly excluded: number };
  readonly notes: readonly string[];
}

const round = (v: number) => Math.round(v * 1e10) / 1e10;

/** The Friedman test over `conditions` on `rows` (one per person), or why it is held back. */
function friedmanOrReason(rows: number[][], conditions: number, who: string): { friedman: FriedmanSummary | null; friedmanNeeds: number; friedmanWithheld: string | null } {
  const needs = friedmanMinimum(conditions);
  if (rows.length < needs) return { friedman: null, friedmanNeeds: needs, friedmanWithheld: tooFewReason(needs, who, rows.length, 'ratings') };
  const r = friedmanTest(rows);
  return { friedman: { n: r.n, statistic: round(r.statistic), df: r.df, p: r.p, kendallW: round(r.kendallW) }, friedmanNeeds: needs, friedmanWithheld: null };
}

/** Pairwise Wilcoxon signed-rank tests, each given only where its data could reach significance; Holm over those given. */
function pairwiseTests(pairs: readonly { a: string; b: string; x: number[]; y: number[] }[]): PairwiseTest[] {
  const tested = pairs.map((pair) => ({ pair, result: wilcoxonSignedRank(pair.x, pair.y) }));
  const given = tested.filter((t) => t.result.n >= SIGNED_RANK_MINIMUM);
  const adjusted = holmAdjust(given.map((t) => t.result.p));
  return tested.map((t) => {
    const { a, b } = t.pair;
    const index = given.indexOf(t);
    if (index < 0) {
      const withheld = tooFewReason(SIGNED_RANK_MINIMUM, `people who rated ${a} and ${b} differently`, t.result.n, 'ratings');
      return { a, b, n: t.result.n, statistic: null, p: null, pHolm: null, rankBiserial: null, withheld };
    }
    return { a, b, n: t.result.n, statistic: t.result.statistic, p: t.result.p, pHolm: adjusted[index]!, rankBiserial: round(t.result.rankBiserial), withheld: null };
  });
}

/** The chi-square's approximation holds with at least this many expected choices per team. */
export const MIN_EXPECTED_PER_TEAM = MIN_EXPECTED;

/**
 * Choices the forced-choice tests need among `teams` teams. The chi-square: 5 expected per
 * team. The exact multinomial test: enough that the most lopsided split (every choice for
 * one team, p = teams^(1-n)) could fall below 0.05; with fewer, no answers could.
 */
export function forcedChoiceMinimum(teams: number): { chiSquare: number; exact: number } {
  return { chiSquare: MIN_EXPECTED_PER_TEAM * teams, exact: exactUniformMinimum(teams) };
}

function forcedChoiceWithheld(n: number, minimum: { chiSquare: number; exact: number }, teams: number): string | null {
  const chi = `no chi-square: it needs at least ${minimum.chiSquare} participants (${MIN_EXPECTED_PER_TEAM} expected per team)`;
  if (n < minimum.exact) return `${chi}, and no exact test: with fewer than ${minimum.exact} participants among ${teams} teams no split of the choices could differ from chance at p < 0.05`;
  if (n < minimum.chiSquare) return chi;
  return null;
}

/** The forced-choice tests given, and why any other is not, in one line ("n 6: exact p 0.1235; no chi-square: ..."). */
export function forcedChoiceTestsLine(fc: Pick<ForcedChoiceAnalysis, 'n' | 'chiSquare' | 'exactP' | 'withheld'>): string {
  if (fc.n === 0) return 'No choices yet.';
  const given = [
    fc.chiSquare ? `chi-square ${fc.chiSquare.statistic.toFixed(2)}, df ${fc.chiSquare.df}, p ${fc.chiSquare.p.toFixed(4)}, Cramer's V ${fc.chiSquare.cramersV.toFixed(3)}` : null,
    fc.exactP !== null ? `exact p ${fc.exactP.toFixed(4)}` : null,
    fc.withheld,
  ].filter((part) => part !== null);
  return `n ${fc.n}: ${given.join('; ')}`;
}

function winRate(team: string, outcomes: readonly string[]): WinRate {
  const aiWins = outcomes.filter((o) => o === 'red').length;
  const draws = outcomes.filter((o) => o === 'draw').length;
  return {
    team,
    episodes: outcomes.length,
    aiWins,
    draws,
    participantWins: outcomes.length - aiWins - draws,
    rate: outcomes.length > 0 ? wilsonInterval(aiWins, outcomes.length) : null,
  };
}

export function analyzeStudy(data: StudyData): StudyAnalysis {
  const { study, participants, answers, episodes, judgements } = data;
  const config = study.config;
  const teams = config.teams;
  const notes: string[] = [];
  const numberOf = new Map(participants.map((p) => [p.id, p.number]));

  // Forced choice.
  const choices = answers.filter((a) => a.kind === 'choice');
  const counts = teams.map((team) => ({ team, count: choices.filter((a) => a.team === team).length }));
  const n = choices.length;
  const minimum = forcedChoiceMinimum(teams.length);
  let chiSquare: ForcedChoiceAnalysis['chiSquare'] = null;
  let exactP: number | null = null;
  if (n >= minimum.chiSquare) {
    const r = chiSquareGoodnessOfFit(counts.map((c) => c.count));
    chiSquare = { statistic: round(r.statistic), df: r.df, p: r.p, cramersV: r.cramersV };
  }
  if (n >= minimum.exact) exactP = exactMultinomialTest(counts.map((c) => c.count)).p;
  const withheld = n === 0 ? null : forcedChoiceWithheld(n, minimum, teams.length);
  if (n === 0 && config.kind === 'play') notes.push('No forced choices yet.');
  const reasons = answers
    .filter((a) => a.kind === 'reason')
    .map((a) => ({ participant: numberOf.get(a.participantId) ?? 0, team: a.team ?? '', label: a.label ?? '', reason: a.valueText ?? '' }));

  // Likert items.
  const ratingOf = (item: string) => {
    const byParticipant = new Map<number, Map<string, AnswerRecord>>();
    for (const a of answers) {
      if (a.kind !== 'likert' || a.item !== item || a.team === null) continue;
      let m = byParticipant.get(a.participantId);
      if (!m) byParticipant.set(a.participantId, (m = new Map()));
      m.set(a.team, a);
    }
    return byParticipant;
  };
  const likert: LikertAnalysis[] = config.likert.map((q) => {
    const byParticipant = ratingOf(q.id);
    const perTeam = teams.map((team) => {
      const values = [...byParticipant.values()].map((m) => m.get(team)?.valueNum).filter((v): v is number => typeof v === 'number');
      return {
        team,
        n: values.length,
        mean: values.length ? round(mean(values)) : null,
        median: values.length ? percentile(values, 50) : null,
        sd: values.length > 1 ? round(standardDeviation(values)) : null,
      };
    });
    const complete = [...byParticipant.values()].filter((m) => teams.every((t) => m.has(t))).map((m) => teams.map((t) => m.get(t)!.valueNum!));
    const pairs: { a: string; b: string; x: number[]; y: number[] }[] = [];
    for (let i = 0; i < teams.length; i++) {
      for (let j = i + 1; j < teams.length; j++) {
        const both = [...byParticipant.values()].filter((m) => m.has(teams[i]!) && m.has(teams[j]!));
        pairs.push({ a: teams[i]!, b: teams[j]!, x: both.map((m) => m.get(teams[i]!)!.valueNum!), y: both.map((m) => m.get(teams[j]!)!.valueNum!) });
      }
    }
    return {
      item: q.id,
      prompt: q.prompt,
      points: q.points,
      perTeam,
      ...friedmanOrReason(complete, teams.length, 'people who rated every team'),
      pairwise: pairwiseTests(pairs),
    };
  });

  // Win rates: every verified block episode people played (practice aside).
  const blocks = episodes.filter((e) => e.participantId !== null && e.block >= 0);
  const played = blocks.filter((e) => e.replayOk);
  const excluded = blocks.length - played.length;
  const winRates = teams.map((team) => winRate(team, played.filter((e) => e.opponent === team).map((e) => e.outcome)));
  const unverified = episodes.filter((e) => !e.replayOk).length;
  if (unverified > 0) {
    notes.push(
      `${unverified} stored replays did not verify (they did not re-simulate to what they claim, or their actions or summary disagreed with the re-simulation): ${excluded} block episodes among them are excluded from every analysis; all are kept and flagged in the export.`,
    );
  }

  // Order effects.
  const positions = teams.map((_, i) => i);
  const order: OrderAnalysis[] = config.likert.map((q) => {
    const byParticipant = new Map<number, Map<number, number>>();
    for (const a of answers) {
      if (a.kind !== 'likert' || a.item !== q.id || a.block < 0 || a.valueNum === null) continue;
      let m = byParticipant.get(a.participantId);
      if (!m) byParticipant.set(a.participantId, (m = new Map()));
      m.set(a.block, a.valueNum);
    }
    const rows = [...byParticipant.values()];
    return {
      item: q.id,
      positions: positions.map((position) => {
        const values = rows.map((m) => m.get(position)).filter((v): v is number => v !== undefined);
        return { position, label: teamLabel(position), n: values.length, mean: values.length ? round(mean(values)) : null };
      }),
      ...friedmanOrReason(rows.filter((m) => positions.every((p) => m.has(p))).map((m) => positions.map((p) => m.get(p)!)), positions.length, 'people who rated every block'),
    };
  });
  const orderWinRates = positions.map((position) => ({
    position,
    ...winRate(teamLabel(position), played.filter((e) => e.block === position).map((e) => e.outcome)),
  }));

  // Free text and background.
  const open = teams.flatMap((team) =>
    config.open.map((q) => ({
      team,
      item: q.id,
      answers: answers.filter((a) => a.kind === 'open' && a.item === q.id && a.team === team && (a.valueText ?? '').trim() !== '').map((a) => a.valueText!),
    })),
  );
  const background = config.background.map((q) => ({
    item: q.id,
    prompt: q.prompt,
    counts: q.options.map((option) => ({ option, count: answers.filter((a) => a.kind === 'background' && a.block === STUDY_BLOCK && a.item === q.id && a.valueText === option).length })),
  }));

  // Observer judgements.
  let observer: StudyAnalysis['observer'] = null;
  if (judgements.length > 0) {
    const types = [...new Set(judgements.map((j) => j.truth))].sort((a, b) => (a === 'human' ? -1 : b === 'human' ? 1 : a.localeCompare(b)));
    observer = {
      participants: new Set(judgements.map((j) => j.participantId)).size,
      judgements: judgements.length,
      types: types.map((type) => {
        const own = judgements.filter((j) => j.truth === type);
        const human = own.filter((j) => j.judgedHuman).length;
        return { type, judgements: own.length, judgedHuman: human, rate: own.length ? wilsonInterval(human, own.length) : null };
      }),
    };
  } else if (config.kind === 'observe') notes.push('No observer judgements yet.');

  return {
    study: { id: study.id, title: study.title, kind: study.kind, teams: [...teams], episodesPerBlock: config.episodesPerBlock, createdAt: study.createdAt },
    participants: { started: participants.length, completed: participants.filter((p) => p.completedAt).length },
    forcedChoice: { n, counts, chiSquare, exactP, minimum, withheld, reasons },
    likert,
    winRates,
    order,
    orderWinRates,
    open,
    background,
    observer,
    episodes: { played: played.length, practice: episodes.filter((e) => e.block === -1).length, unverified, excluded },
    notes,
  };
}
