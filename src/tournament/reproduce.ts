/**
 * The study, reproduced: its three matchups (bt vs llm, bt vs flat, llm vs flat), the
 * planner against the same opponents, the best constant plan (every plan of the fixed team
 * against the tree; then the tree and llm against the best), and the ablations it lacked, each played as its own two-team
 * tournament (sides swapped, records on disk, resumable), then one report beside the
 * study's figures (../shared/PAPER.md):
 * matchups with Wilson intervals and the study's z-test, the targets met or missed, the per-agent table, skill use and
 * skill-transition entropy, how each side of every row played (skills, K/D, the language
 * model's decisions and the cache's share of them), plots, and what the run was (model and
 * settings, cache hit rate, code version, fingerprints, date, command).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LlmAvailability, RulesAgreement } from '../llm';
import { interval as ci, markdownTable as table, num, pValue as p, pct } from '../report/format';
import { toCsv } from '../report/csv';
import { type Plot, categoryColours, categoryEncoding, intervalLayer, plotFiles, referenceLayer, shareEncoding } from '../report/plot';
import { SKILL_IDS, type SkillId } from '../skills';
import type { NodePlatform } from '../teams/nodePlatform';
import { type ProportionInterval, decisiveShare } from '../stats/wilson';
import { type EpisodeRecord, writeWholeFile } from './records';
import type { Manifest } from './manifest';
import { runTournament } from './run';
import { type DifferentEpisode, readComparedRecords, sameAs } from './sameAs';
import { type MatchupSummary, type TeamSummary, summarizeMatchup, summarizeTeam } from './summary';

/** What the study reports (PAPER.md), for the report to stand beside. */
export const STUDY = {
  /** Per matchup (round robin). */
  episodes: 1000,
  matchups: [
    { first: 'bt', second: 'llm', firstWins: 0.515, secondWins: 0.464, draws: 0.021, p: 0.103 },
    { first: 'bt', second: 'flat', firstWins: 0.722, secondWins: 0.168, draws: 0.11, p: null },
    { first: 'llm', second: 'flat', firstWins: 0.67, secondWins: 0.192, draws: 0.138, p: null },
  ],
  agents: {
    flat: { kd: 2.074, shots: 87, accuracy: 0.56, pickups: 0.08 },
    llm: { kd: 0.901, shots: 81, accuracy: 0.32, pickups: 0.57 },
    bt: { kd: 0.406, shots: 26, accuracy: 0.96, pickups: 0.35 },
  },
  skillUse: { llm: { combat: 0.362, navigate: 0.408 }, bt: { combat: 0.24, navigate: 0.499 } },
  transitionEntropyBits: { llm: 3.19, bt: 2.47 },
} as const;

export interface Row {
  /** What the row measures. */
  readonly name: string;
  readonly first: string;
  readonly second: string;
  /** Its sides run two local engines (an adapter against the model alone, or against another adapter): played on ReproduceOptions.twoEnginePlatform. */
  readonly twoEngines?: true;
}

export const STUDY_ROWS: readonly Row[] = STUDY.matchups.map((m) => ({ name: `${m.first} vs ${m.second}`, first: m.first, second: m.second }));

/**
 * The planner (teams/planner.ts), a strategist that looks ahead in copies of the world,
 * against the study's two opponents: what a teacher that searches reaches, with no
 * language model.
 */
export const PLANNER_ROWS: readonly Row[] = ['bt', 'flat'].map((second) => ({ name: `planner vs ${second}`, first: 'planner', second }));

/**
 * The ablations the study lacked, as rows of the same report. `tuned`: the local model runs
 * with its adapter, which was taught one format: the format row then compares compact with
 * json on the model alone (so it measures the format, not the adapter), and a row plays the
 * tuned model against the model alone (what the teaching is worth). `otherAdapters`: the
 * adapters shipped beside the model's own (localModels.ts), each played against it.
 */
export function ablationRows(tuned: boolean, otherAdapters: readonly string[] = []): Row[] {
  return [
    { name: 'random skill choice (vs flat)', first: 'random', second: 'flat' },
    { name: 'the tree over scripted skills (vs flat)', first: 'bt-scripted', second: 'flat' },
    { name: 'event-triggered vs fixed-rate decisions', first: 'llm', second: 'llm:events=none' },
    ...(tuned ? [{ name: 'the tuned model vs the model alone (each in its own format)', first: 'llm', second: 'llm:adapter=none', twoEngines: true as const }] : []),
    ...(tuned ? otherAdapters.map((name) => ({ name: `the ${name} adapter vs the default one`, first: `llm:adapter=${name}`, second: 'llm', twoEngines: true as const })) : []),
    { name: 'one persona vs none', first: 'llm:persona=cautious', second: 'llm' },
    { name: 'two personas', first: 'llm:persona=aggressive', second: 'llm:persona=cautious' },
    // Last: its json side writes a rationale with every answer, about 12 episodes an hour on 2 cores.
    tuned
      ? // Both formats named, so the row's name says what each side is asked in (the two share one engine).
        { name: 'compact vs json answers (the model alone)', first: 'llm:adapter=none:format=compact', second: 'llm:adapter=none:format=json' }
      : { name: 'default vs json answers', first: 'llm', second: 'llm:format=json' },
  ];
}

/**
 * Every constant plan of two agents (the fixed team), one per unordered pair of skills: the
 * agents start alike, so secure+combat and combat+secure are one plan.
 */
export const CONSTANT_PLANS: readonly string[] = SKILL_IDS.flatMap((a, i) => SKILL_IDS.slice(i).map((b) => `fixed:skills=${a}+${b}`));

/** Each plan against the tree, the plan second: how the best constant plan is found. */
export function planRows(plans: readonly string[] = CONSTANT_PLANS): Row[] {
  return plans.map((plan) => ({ name: `bt vs ${plan}`, first: 'bt', second: plan }));
}

/** The rows against the best plan, once it is known: a strategist should beat no strategy. */
export function bestPlanRows(plan: string): Row[] {
  return ['bt', 'llm'].map((first) => ({ name: `${first} vs the best constant plan (${plan})`, first, second: plan }));
}

/** What the best constant plan must concede: llm takes at least this share of the decisive games against it. */
export const BEST_PLAN_TARGET = 0.65;

/**
 * The tournament seed of the rows against the best plan: not the plans' (1), so the tree
 * meets the best plan in games other than those that made it the best.
 */
const BEST_PLAN_SEED = 2;

/** A plan's points against the tree, per episode: a win 1, a draw 1/2. */
export function planPoints(m: MatchupResult): number {
  return m.episodes ? (m.secondWins + m.draws / 2) / m.episodes : Number.NaN;
}

/** Plans best first: the most points against the tree, then the most wins; else in their given order. */
export function rankPlans(rows: readonly MatchupResult[]): MatchupResult[] {
  return rows
    .map((m, i) => ({ m, i }))
    .sort((a, b) => planPoints(b.m) - planPoints(a.m) || b.m.bRate.estimate - a.m.bRate.estimate || a.i - b.i)
    .map(({ m }) => m);
}

/** A figure the product aims at: one side's share of a row's games (all, or the decisive ones). */
export interface Target {
  readonly what: string;
  /** The row it is read from, once that row has played. */
  readonly row: (r: Reproduction) => MatchupResult | undefined;
  readonly side: 'first' | 'second';
  /** wins: of all the row's games; decisive: of its decisive games (a draw counts for neither). */
  readonly measure: 'wins' | 'decisive';
  readonly atLeast: number;
}

/**
 * The targets a strategist that searches, and the model it teaches, must reach: the planner
 * well above the tree, llm above the tree and above the study's own llm against flat, and a
 * strategy worth more than none.
 */
export const TARGETS: readonly Target[] = [
  { what: "planner vs bt: the planner's share of the decisive games", row: (r) => r.planner.find((m) => m.second === 'bt'), side: 'first', measure: 'decisive', atLeast: 0.65 },
  { what: "llm vs bt: llm's share of the decisive games", row: (r) => r.matchups.find((m) => m.first === 'bt' && m.second === 'llm'), side: 'second', measure: 'decisive', atLeast: 0.55 },
  { what: "llm vs flat: llm's wins (the study's 67.0%)", row: (r) => r.matchups.find((m) => m.first === 'llm' && m.second === 'flat'), side: 'first', measure: 'wins', atLeast: 0.67 },
  { what: "llm vs the best constant plan: llm's share of the decisive games", row: (r) => r.plans.againstBest.find((m) => m.first === 'llm'), side: 'first', measure: 'decisive', atLeast: BEST_PLAN_TARGET },
];

/** A target's figure on a played row, with its 95% interval; null where the row has no decisive game to share. */
export function targetFigure(target: Target, m: MatchupResult): ProportionInterval | null {
  const [own, other] = target.side === 'first' ? [m.firstWins, m.secondWins] : [m.secondWins, m.firstWins];
  if (target.measure === 'decisive') return decisiveShare(own, other);
  return target.side === 'first' ? m.aRate : m.bRate;
}

export interface ReproduceOptions {
  /** Episodes per study matchup. */
  readonly episodes: number;
  /** Episodes per ablation row; default `episodes`. */
  readonly ablationEpisodes?: number;
  readonly out: string;
  /** One platform for every row (tournamentSpec sizes its engine), so one local engine serves them all; the caller closes it. */
  readonly platform: NodePlatform;
  /**
   * The platform for the rows whose sides run two local engines (Row.twoEngines), its engines
   * sized to share the cores (two engines of a thread per core spin against each other:
   * docs/llm.md, LLM_THREADS); default `platform`. The caller closes it.
   */
  readonly twoEnginePlatform?: NodePlatform;
  readonly workers: number;
  readonly llmConcurrency?: number;
  readonly ablations: boolean;
  /** The local model runs with a LoRA adapter: the ablations add the row that takes it away (ablationRows). */
  readonly tuned?: boolean;
  /** The adapters shipped beside the local model's own: the ablations play each against it (ablationRows). */
  readonly otherAdapters?: readonly string[];
  /** Episodes each constant plan plays against the tree; default the ablations'. */
  readonly planEpisodes?: number;
  /** The constant plans tried (fixed team ids); default every one (CONSTANT_PLANS). */
  readonly plans?: readonly string[];
  /** The command line as typed, recorded in the report. */
  readonly command: string;
  /** The source's commit (and whether it had changes), where the entry point can tell. */
  readonly commit?: string;
  /** What the language model is (from the platform's availability), recorded in the report. */
  readonly llm: LlmAvailability;
  /** After each episode a row plays: the episodes so far over all rows. */
  readonly onProgress?: (done: number, total: number, row: string) => void;
  /** As each row starts: the episodes so far, those of the row found recorded on disk among them. */
  readonly onResumed?: (done: number, total: number, row: string) => void;
  /** How often a row in play writes the report so far, in its episodes; default INTERIM_REPORT_EVERY. */
  readonly reportEvery?: number;
  /** Each report once it is written: the report so far while the run goes on, then the whole. */
  readonly onReport?: (report: Reproduction) => void;
  /**
   * A tournament folder where episodes of the bt vs llm row were played again with the
   * decision cache off (npm run tournament -- --teams bt,llm ... with LLM_CACHE=off): the
   * report compares each with the row's own (cacheCheck).
   */
  readonly cacheSample?: string;
}

/** The platform a row plays on: the two-engine one where its sides run two local engines and the caller gave one. */
export function rowPlatform(row: Row, options: Pick<ReproduceOptions, 'platform' | 'twoEnginePlatform'>): NodePlatform {
  return row.twoEngines && options.twoEnginePlatform ? options.twoEnginePlatform : options.platform;
}

/** The row a cache-off sample is held to: the study's first, where llm answers every decision of its side. */
export const CACHE_SAMPLE_ROW = STUDY_ROWS[0]!;

/** Whether the decision cache moved the row: its episodes played again with the cache off, each compared with the row's. */
export interface CacheCheck {
  /** The sample's folder, as given. */
  readonly sample: string;
  readonly row: string;
  /** The sample's episodes of the row's matchup (others in its folder are left out), and how many had any decision answered by the cache (0 in a cache-off sample). */
  readonly sampled: number;
  readonly sampledWithCacheHits: number;
  /** Of those, the ones the row holds with another seed: the sample was played with another tournament seed. */
  readonly otherSeeds: number;
  /** Episodes in both the sample and the row, and of those the ones that ended in the same final state. */
  readonly compared: number;
  readonly same: number;
  /** The first few that did not. */
  readonly different: readonly DifferentEpisode[];
}

/** The cache check of `rowRecords` (the bt vs llm row's records so far) against the sample in `sample`. */
export function cacheCheck(sample: string, rowRecords: readonly EpisodeRecord[]): CacheCheck {
  // The row's episodes only, by their keys (first|second|index): a folder of other matchups, or of llm,bt, has none.
  const ofRow = `${CACHE_SAMPLE_ROW.first}|${CACHE_SAMPLE_ROW.second}|`;
  const sampled = readComparedRecords(sample).filter((r) => r.key.startsWith(ofRow));
  const report = sameAs(rowRecords, sampled);
  return {
    sample,
    row: CACHE_SAMPLE_ROW.name,
    sampled: sampled.length,
    sampledWithCacheHits: sampled.filter((r) => r.cacheHits > 0).length,
    otherSeeds: report.otherSeeds,
    compared: report.compared,
    same: report.same,
    different: report.different.slice(0, 10),
  };
}

/**
 * How often a row in play writes the report so far, in its episodes. An llm row of 1,000
 * episodes plays for hours on two cores (about 4 episodes a minute): every 50, some 13
 * minutes apart, the report shows its figures so far and their intervals narrowing.
 */
export const INTERIM_REPORT_EVERY = 50;

/** How one side of a row played: its team's figures, and what its language model decided, if it has one. */
export interface RowSide extends TeamSummary {
  readonly llm: LlmDecisions;
}

/** A language model's decisions over some records: asked, answered from the cache, failed. */
export interface LlmDecisions {
  readonly requests: number;
  readonly cacheHits: number;
  readonly failed: number;
  /** The applied answers against the tree's rules on the situations they answered (llm/counters.ts). */
  readonly rules: RulesAgreement;
}

/** What a row is: one of the study's, the planner's, a constant plan against the tree, against the best plan, an ablation. */
export const ROW_KINDS = ['study', 'planner', 'plan', 'best plan', 'ablation'] as const;
export type RowKind = (typeof ROW_KINDS)[number];

export interface MatchupResult extends Pick<MatchupSummary, 'aRate' | 'bRate' | 'drawRate' | 'pDecisive' | 'pTwoProportion'> {
  readonly name: string;
  readonly kind: RowKind;
  readonly first: string;
  readonly second: string;
  readonly episodes: number;
  readonly firstWins: number;
  readonly secondWins: number;
  readonly draws: number;
  /** The first team, then the second (absent in reports from before sides were recorded). */
  readonly sides?: readonly RowSide[];
  readonly study?: (typeof STUDY.matchups)[number];
}

export interface Reproduction {
  readonly format: 'hillmind-reproduction';
  /** 2: with the constant plans (plans) and each row's kind; 3: with the planner's rows. */
  readonly version: 3;
  readonly command: string;
  readonly date: string;
  readonly code: Manifest['code'] & { readonly commit?: string };
  readonly fingerprints: Record<string, string>;
  readonly llm: Record<string, unknown>;
  readonly episodesPerMatchup: number;
  readonly episodesPerAblation: number;
  readonly matchups: readonly MatchupResult[];
  /** The planner against the study's opponents (PLANNER_ROWS). */
  readonly planner: readonly MatchupResult[];
  /** Every constant plan tried against the tree (planRows), then the tree and llm against the best. */
  readonly plans: { readonly episodesPerPlan: number; readonly rows: readonly MatchupResult[]; readonly best?: string; readonly againstBest: readonly MatchupResult[] };
  readonly ablations: readonly MatchupResult[];
  readonly agents: readonly TeamSummary[];
  /** The rows still to play, in a report written while the run goes on; absent once it is whole. */
  readonly pending?: readonly string[];
  /** The row in play when the report was written: its figures in the report are those of its first `episodes`. */
  readonly inPlay?: { readonly row: string; readonly episodes: number; readonly of: number };
  /** Whether the decision cache moved the bt vs llm row, where a cache-off sample was given. */
  readonly cacheCheck?: CacheCheck;
}

/** Where each stage's tournaments go under runs/: a plan plays the tree twice, once to be ranked and once as the best, apart. */
const STAGE_DIRS: Record<RowKind, string> = { study: '', planner: '', plan: 'plans', 'best plan': 'best-plan', ablation: '' };

const slug = (row: Pick<Row, 'first' | 'second'>) => `${row.first}--vs--${row.second}`.replace(/[^a-z0-9=+.-]+/gi, '_');

/** A row's folder under the run's (its tournament: records, manifest, tables). */
export function rowFolder(row: Pick<Row, 'first' | 'second'>, kind: RowKind): string {
  return join('runs', STAGE_DIRS[kind], slug(row));
}

/** The language model's decisions over every llm side of `records`, or only the sides `team` played. */
export function llmDecisions(records: readonly EpisodeRecord[], team?: string): LlmDecisions {
  let requests = 0;
  let cacheHits = 0;
  let failed = 0;
  const rules = { choices: 0, agreed: 0, heldOut: { choices: 0, agreed: 0 } };
  for (const r of records) {
    for (const [side, figures] of Object.entries(r.llm ?? {})) {
      if (team !== undefined && r[side as 'blue' | 'red'] !== team) continue;
      const f = figures as { requests?: number; cacheHits?: number; failed?: number; rules?: RulesAgreement };
      requests += f.requests ?? 0;
      cacheHits += f.cacheHits ?? 0;
      failed += f.failed ?? 0;
      // Records written before the count was kept have none.
      rules.choices += f.rules?.choices ?? 0;
      rules.agreed += f.rules?.agreed ?? 0;
      rules.heldOut.choices += f.rules?.heldOut.choices ?? 0;
      rules.heldOut.agreed += f.rules?.heldOut.agreed ?? 0;
    }
  }
  return { requests, cacheHits, failed, rules };
}

/** The share of decisions the cache answered, over every llm side of every record. */
export function cacheHitRate(records: readonly EpisodeRecord[]): number | null {
  const { requests, cacheHits } = llmDecisions(records);
  return requests > 0 ? cacheHits / requests : null;
}

/** A row's figures over its records (all of them, or those so far): its matchup and each side's play. */
export function rowResult(row: Row, kind: RowKind, records: readonly EpisodeRecord[]): MatchupResult {
  const m = summarizeMatchup(records, row.first, row.second);
  const study = STUDY.matchups.find((s) => s.first === row.first && s.second === row.second);
  return {
    name: row.name,
    kind,
    first: row.first,
    second: row.second,
    episodes: m.episodes,
    firstWins: m.aWins,
    secondWins: m.bWins,
    draws: m.draws,
    sides: [row.first, row.second].map((team) => ({ ...summarizeTeam(records, team), llm: llmDecisions(records, team) })),
    aRate: m.aRate,
    bRate: m.bRate,
    drawRate: m.drawRate,
    pDecisive: m.pDecisive,
    pTwoProportion: m.pTwoProportion,
    ...(study ? { study } : {}),
  };
}

export async function reproduce(options: ReproduceOptions): Promise<Reproduction> {
  const ablationEpisodes = options.ablationEpisodes ?? options.episodes;
  const planEpisodes = options.planEpisodes ?? ablationEpisodes;
  // The plans and the planner first: they need no language model, so their figures come within
  // the first hour of a run that takes many. The best plan is known once the plans have played:
  // its rows are named then.
  const stages: { readonly kind: RowKind; rows: readonly Row[]; readonly episodes: number; readonly seed: number }[] = [
    { kind: 'plan', rows: planRows(options.plans), episodes: planEpisodes, seed: 1 },
    { kind: 'planner', rows: PLANNER_ROWS, episodes: options.episodes, seed: 1 },
    { kind: 'study', rows: STUDY_ROWS, episodes: options.episodes, seed: 1 },
    { kind: 'best plan', rows: bestPlanRows('to be found'), episodes: options.episodes, seed: BEST_PLAN_SEED },
    { kind: 'ablation', rows: options.ablations ? ablationRows(options.tuned ?? false, options.otherAdapters) : [], episodes: ablationEpisodes, seed: 1 },
  ];
  const total = stages.reduce((sum, s) => sum + s.rows.length * s.episodes, 0);
  const played: Record<RowKind, MatchupResult[]> = { study: [], planner: [], plan: [], 'best plan': [], ablation: [] };
  const records: EpisodeRecord[] = [];
  const fingerprints: Record<string, string> = {};
  let code: Manifest['code'] = { version: 'unknown' };
  mkdirSync(options.out, { recursive: true });
  const reportEvery = Math.max(1, options.reportEvery ?? INTERIM_REPORT_EVERY);
  const pendingRows = () => stages.flatMap((s) => s.rows.slice(played[s.kind].length).map((r) => r.name));
  let before = 0;
  for (const stage of stages) {
    if (stage.kind === 'best plan') stage.rows = played.plan.length ? bestPlanRows(rankPlans(played.plan)[0]!.second) : [];
    for (const row of stage.rows) {
      played[stage.kind].push(await playRow(row, stage, before));
      before += stage.episodes;
      // The report so far after every row: a long run shows its finished rows and names the rest.
      const pending = pendingRows();
      if (pending.length) await writeReport(build(pending));
    }
  }
  const reproduction = build([]);
  await writeReport(reproduction);
  return reproduction;

  async function playRow(row: Row, stage: { readonly kind: RowKind; readonly episodes: number; readonly seed: number }, offset: number): Promise<MatchupResult> {
    const out = join(options.out, rowFolder(row, stage.kind));
    // Every `reportEvery` episodes the report so far, with this row's figures so far in it;
    // written one after another, and a failed write fails the row once its episodes end.
    let reporting: Promise<void> = Promise.resolve();
    const onRecorded = (so: readonly EpisodeRecord[]) => {
      if (so.length % reportEvery !== 0 || so.length >= stage.episodes) return;
      const snapshot = build(
        pendingRows().filter((name) => name !== row.name),
        { kind: stage.kind, result: rowResult(row, stage.kind, so), records: [...so], of: stage.episodes },
      );
      reporting = reporting.then(() => writeReport(snapshot));
    };
    const result = await runTournament({
      onRecorded,
      settings: { teams: [row.first, row.second], episodes: stage.episodes, seed: stage.seed },
      platform: rowPlatform(row, options),
      out,
      workers: options.workers,
      // A killed reproduction resumes where it stopped; changed settings are refused by name.
      resume: existsSync(join(out, 'manifest.json')),
      ...(options.llmConcurrency ? { llmConcurrency: options.llmConcurrency } : {}),
      onResumed: (done) => options.onResumed?.(offset + done, total, row.name),
      onProgress: (done) => options.onProgress?.(offset + done, total, row.name),
    });
    await reporting;
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as Manifest;
    Object.assign(fingerprints, manifest.fingerprints);
    code = manifest.code;
    records.push(...result.records);
    return rowResult(row, stage.kind, result.records);
  }

  /** The report over the rows played, and the row in play with its records so far, if one is. */
  function build(pending: readonly string[], inPlay?: { readonly kind: RowKind; readonly result: MatchupResult; readonly records: readonly EpisodeRecord[]; readonly of: number }): Reproduction {
    const rowsOf = (kind: RowKind) => (inPlay?.kind === kind ? [...played[kind], inPlay.result] : played[kind]);
    const studyRecords = [...records, ...(inPlay?.records ?? [])].filter((r) => STUDY_ROWS.some((row) => row.first === r.a && row.second === r.b));
    return {
      format: 'hillmind-reproduction',
      version: 3,
      command: options.command,
      date: new Date().toISOString(),
      code: { ...code, ...(options.commit ? { commit: options.commit } : {}) },
      fingerprints,
      llm: { ...options.llm, cacheHitRate: cacheHitRate([...records, ...(inPlay?.records ?? [])]) },
      episodesPerMatchup: options.episodes,
      episodesPerAblation: options.ablations ? ablationEpisodes : 0,
      matchups: rowsOf('study'),
      planner: rowsOf('planner'),
      plans: { episodesPerPlan: planEpisodes, rows: rowsOf('plan'), ...(rowsOf('best plan')[0] ? { best: rowsOf('best plan')[0]!.second } : {}), againstBest: rowsOf('best plan') },
      ablations: rowsOf('ablation'),
      agents: ['bt', 'llm', 'flat'].map((t) => summarizeTeam(studyRecords, t)),
      ...(pending.length ? { pending } : {}),
      ...(inPlay ? { inPlay: { row: inPlay.result.name, episodes: inPlay.records.length, of: inPlay.of } } : {}),
      ...(options.cacheSample ? { cacheCheck: cacheCheck(options.cacheSample, studyRecords.filter((r) => r.a === CACHE_SAMPLE_ROW.first && r.b === CACHE_SAMPLE_ROW.second)) } : {}),
    };
  }

  // Each file whole or not at all: a run killed while it reports leaves the last report whole.
  async function writeReport(reproduction: Reproduction): Promise<void> {
    writeWholeFile(join(options.out, 'reproduction.json'), `${JSON.stringify(reproduction, null, 2)}\n`);
    writeWholeFile(join(options.out, 'reproduction.md'), reproductionMarkdown(reproduction));
    for (const plot of [matchupPlot(reproduction.matchups), skillPlot(reproduction.agents)]) {
      for (const [name, text] of await plotFiles(plot)) writeWholeFile(join(options.out, name), text);
    }
    for (const [name, text] of reproductionTables(reproduction)) writeWholeFile(join(options.out, name), text);
    options.onReport?.(reproduction);
  }
}


/**
 * Whether a matchup agrees with the study: the study's shares of first wins, second wins
 * and draws each inside our 95% interval ("agrees"), or else whether at least the same
 * team won more games ("same winner"), or not ("differs"), naming the shares outside.
 */
export function agreement(m: MatchupResult): string {
  const { study } = m;
  if (!study || m.episodes === 0) return '-';
  const shares = [
    ['first wins', study.firstWins, m.aRate],
    ['second wins', study.secondWins, m.bRate],
    ['draws', study.draws, m.drawRate],
  ] as const;
  const outside = shares.filter(([, v, i]) => v < i.lower || v > i.upper).map(([name, v, i]) => `${name} ${pct(v)} ${v < i.lower ? 'below' : 'above'} ours`);
  if (outside.length === 0) return 'agrees';
  const winner = (a: number, b: number) => (a > b ? m.first : b > a ? m.second : 'neither');
  const same = winner(study.firstWins, study.secondWins) === winner(m.firstWins, m.secondWins);
  return `${same ? 'same winner' : 'differs'}; the study's ${outside.join(', ')}`;
}

function matchupRows(ms: readonly MatchupResult[]): string[][] {
  return ms.map((m) => [
    m.name,
    String(m.episodes),
    ci(m.aRate),
    ci(m.bRate),
    ci(m.drawRate),
    p(m.pDecisive),
    m.study ? `${pct(m.study.firstWins)} / ${pct(m.study.secondWins)} / ${pct(m.study.draws)}${m.study.p !== null ? ` (p=${m.study.p})` : ''}` : '-',
    agreement(m),
  ]);
}

export function reproductionMarkdown(r: Reproduction): string {
  const llm = r.llm as { ok?: boolean; model?: string; provider?: string; settings?: Record<string, unknown>; cacheHitRate?: number | null; reason?: string };
  const skill = (t: TeamSummary, s: SkillId) => pct(t.skillShare[s]);
  const studyAgent = (team: string) => STUDY.agents[team as keyof typeof STUDY.agents];
  return `${[
    '# The study, reproduced',
    '',
    `${r.episodesPerMatchup} episodes per matchup${r.ablations.length && r.episodesPerAblation !== r.episodesPerMatchup ? ` and ${r.episodesPerAblation} per ablation` : ''}, sides swapped every other episode, tournament seed 1. Intervals are 95% Wilson score intervals; "p (decisive)" is the study's test: the first team's share of decisive games against 50%.`,
    '',
    ...(r.inPlay || r.pending?.length
      ? [
          `**Not finished:**${r.inPlay ? ` ${r.inPlay.row} is in play, and its figures here are those of its first ${r.inPlay.episodes} of ${r.inPlay.of} episodes.` : ''}${r.pending?.length ? ` Still to play: ${r.pending.join('; ')}.` : ''} Run the command below again to go on.`,
          '',
        ]
      : []),
    '## Matchups',
    '',
    table(['matchup', 'episodes', 'first wins', 'second wins', 'draws', 'p (decisive)', 'study: first / second / draws', 'beside the study'], matchupRows(r.matchups)),
    '',
    '![matchups beside the study](matchups.svg)',
    '',
    'Data: [rows.csv](rows.csv) (every row, ablations too), [matchups.csv](matchups.csv) (the plot\'s, with its Vega-Lite spec [matchups.vl.json](matchups.vl.json)).',
    '',
    ...(r.planner.length
      ? [
          '## The planner',
          '',
          "A strategist the study lacked: at each decision the planner plays each candidate choice forward in a copy of the world against a model of its opponent, and keeps the best (docs/matches.md, \"The planner\"). It needs no language model; it is the teacher the planner-taught adapter learnt from.",
          '',
          table(['matchup', 'episodes', 'first wins', 'second wins', 'draws', 'p (decisive)', "first's share of decisive games"], r.planner.map((m) => [m.name, String(m.episodes), ci(m.aRate), ci(m.bRate), ci(m.drawRate), p(m.pDecisive), decisiveText(m.firstWins, m.secondWins)])),
          '',
        ]
      : []),
    ...targetsSection(r),
    ...cacheSection(r),
    '## Per agent',
    '',
    table(
      ['team', 'agent-episodes', 'K/D', 'shots', 'accuracy', 'pickups/ep', 'study K/D', 'study shots', 'study accuracy', 'study pickups'],
      r.agents.map((t) => {
        const s = studyAgent(t.team);
        return [t.team, String(t.agentEpisodes), num(t.kd, 3), num(t.shotsPerEpisode, 1), pct(t.accuracy), num(t.pickupsPerEpisode), num(s?.kd, 3), String(s?.shots ?? '-'), pct(s?.accuracy), num(s?.pickups)];
      }),
    ),
    '',
    '## Skill use and skill-transition entropy',
    '',
    table(
      ['team', ...SKILL_IDS, 'transition entropy (bits)', 'study combat / navigate', 'study entropy'],
      r.agents
        .filter((t) => t.team !== 'flat')
        .map((t) => {
          const su = STUDY.skillUse[t.team as 'llm' | 'bt'];
          return [t.team, ...SKILL_IDS.map((s) => skill(t, s)), num(t.transitionEntropyBits ?? undefined), su ? `${pct(su.combat)} / ${pct(su.navigate)}` : '-', num(STUDY.transitionEntropyBits[t.team as 'llm' | 'bt'])];
        }),
    ),
    '',
    '![skill use beside the study](skills.svg)',
    '',
    'Data: [agents.csv](agents.csv), [sides.csv](sides.csv) (how each side of every row played), [skills.csv](skills.csv) (the plot\'s, with its Vega-Lite spec [skills.vl.json](skills.vl.json)).',
    '',
    ...plansSection(r.plans),
    ...(r.ablations.length
      ? ['## Ablations the study lacked', '', table(['row', 'episodes', 'first wins', 'second wins', 'draws', 'p (decisive)', 'study', 'beside the study'], matchupRows(r.ablations)), '']
      : []),
    ...sidesSection(allRows(r)),
    '## The run',
    '',
    `- Language model: ${llm.ok ? `${llm.model} (${llm.provider})` : `none (${llm.reason ?? 'not configured'})`}${llm.settings ? `; settings ${JSON.stringify(llm.settings)}` : ''}.`,
    `- Decision cache hit rate: ${llm.cacheHitRate === null || llm.cacheHitRate === undefined ? 'no llm decisions' : pct(llm.cacheHitRate)}.`,
    `- Code version ${r.code.version}${r.code.commit ? ` (commit ${r.code.commit})` : ''}; fingerprints ${Object.entries(r.fingerprints).map(([k, v]) => `${k} ${v}`).join(', ')}.`,
    `- Date ${r.date}; command \`${r.command}\`.`,
    '',
  ].join('\n')}`;
}

/** Every row the report holds, in its order: the study's, the planner's, the plans', those against the best plan, the ablations. */
export function allRows<R = MatchupResult>(r: {
  readonly matchups: readonly R[];
  readonly planner: readonly R[];
  readonly plans: { readonly rows: readonly R[]; readonly againstBest: readonly R[] };
  readonly ablations: readonly R[];
}): R[] {
  return [...r.matchups, ...r.planner, ...r.plans.rows, ...r.plans.againstBest, ...r.ablations];
}

/** A share of the decisive games with its interval, or '-' where none was decisive. */
function decisiveText(firstWins: number, secondWins: number): string {
  const d = decisiveShare(firstWins, secondWins);
  return d ? ci(d) : '-';
}

/**
 * Each target beside its figure once its row has played: met where the estimate reaches it,
 * "the whole interval" where the interval's lower end does too; a row still in play shows its
 * figure so far, not judged.
 */
function targetsSection(r: Reproduction): string[] {
  const rows = TARGETS.flatMap((t) => {
    const m = t.row(r);
    if (!m) return [];
    const figure = targetFigure(t, m);
    const inPlay = r.inPlay?.row === m.name;
    const verdict = inPlay ? `in play (${r.inPlay!.episodes} of ${r.inPlay!.of})` : !figure ? '-' : figure.lower >= t.atLeast ? 'met (the whole interval)' : figure.estimate >= t.atLeast ? 'met' : 'missed';
    return [[t.what, `at least ${pct(t.atLeast)}`, figure ? ci(figure) : '-', String(m.episodes), verdict]];
  });
  if (!rows.length) return [];
  return ['## Targets', '', table(['target', 'aim', 'measured', 'episodes', 'verdict'], rows), ''];
}

/** Whether the decision cache moved a row: the cache-off sample's episodes beside the row's. */
function cacheSection(r: Reproduction): string[] {
  const c = r.cacheCheck;
  if (!c) return [];
  const hitRate = (r.llm as { cacheHitRate?: number | null }).cacheHitRate;
  const verdict =
    c.sampledWithCacheHits > 0
      ? `It is no cache-off sample: the cache answered decisions in ${c.sampledWithCacheHits} of its ${c.sampled} episodes, so it shows nothing of the cache; play it again with \`LLM_CACHE=off\`.`
      : c.sampled === 0
        ? `It holds no episode of the row's matchup yet (played as \`--teams ${CACHE_SAMPLE_ROW.first},${CACHE_SAMPLE_ROW.second}\`, the row's seed 1): nothing to compare.`
        : c.otherSeeds > 0
          ? `${c.otherSeeds} of its episodes have other seeds than the row's: it was played with another \`--seed\` than the row's (1), so it shows nothing.`
          : c.compared === 0
            ? `None of its ${c.sampled} episodes is in the row yet.`
          : c.same === c.compared
            ? `All ${c.compared} that the row holds ended in the same final state as the row's (the same state hash): the cache moved no episode of them, so no figure.`
            : `${c.same} of the ${c.compared} that the row holds ended in the same final state as the row's; these did not, and the row's figures are not the model's alone until the cause is found: ${c.different.map((d) => `${d.key} (seed ${d.seed}: row ${d.ours.winner ?? 'draw'}, sample ${d.theirs.winner ?? 'draw'})`).join(', ')}${c.compared - c.same > c.different.length ? ', ...' : ''}.`;
  return [
    '## The decision cache',
    '',
    `The cache answers a prompt it has seen before with the answer the model gave then (${hitRate === null || hitRate === undefined ? 'no llm decisions yet' : `${pct(hitRate)} of this run's decisions`}). It must not be part of the result: ${c.sampled} episodes of the ${c.row} row were played again with the cache off (\`${c.sample}\`). ${verdict}`,
    '',
  ];
}

/**
 * The best constant plan: every plan against the tree (the plan's points: a win 1, a draw
 * 1/2), then the tree and llm against the best, each with its share of the decisive games
 * beside the target a strategist should reach against no strategy.
 */
function plansSection(plans: Reproduction['plans']): string[] {
  if (!plans.rows.length) return [];
  const ranked = rankPlans(plans.rows);
  const share = (m: MatchupResult) => decisiveText(m.firstWins, m.secondWins);
  return [
    '## The best constant plan',
    '',
    `A constant plan gives each agent one skill for the whole game (the \`fixed\` team): a baseline without a strategist, which the study lacked. Each of the ${plans.rows.length} plans played the tree over ${plans.episodesPerPlan} episodes; the best is the one with the most points against it (a win 1, a draw 1/2; then the most wins), and it then plays the tree and llm in games of its own (tournament seed ${BEST_PLAN_SEED}), not those that made it the best. A strategist should beat no strategy: llm's target is at least ${pct(BEST_PLAN_TARGET)} of the decisive games against the best plan, with the tree's own figure beside it.`,
    '',
    table(
      ['plan', 'episodes', 'tree wins', 'plan wins', 'draws', "plan's points"],
      ranked.map((m) => [m.second.replace('fixed:skills=', ''), String(m.episodes), ci(m.aRate), ci(m.bRate), ci(m.drawRate), pct(planPoints(m))]),
    ),
    '',
    ...(plans.againstBest.length
      ? [
          `Against the best plan, \`${plans.best}\`:`,
          '',
          table(
            ['row', 'episodes', 'first wins', 'plan wins', 'draws', "first's share of decisive games", 'target'],
            plans.againstBest.map((m) => [m.name, String(m.episodes), ci(m.aRate), ci(m.bRate), ci(m.drawRate), share(m), m.first === 'llm' ? `at least ${pct(BEST_PLAN_TARGET)}` : '-']),
          ),
          '',
        ]
      : []),
  ];
}

/** The report's tables as data (full precision): every row, the per-agent figures, each row's two sides. */
export function reproductionTables(r: Reproduction): Map<string, string> {
  const rows = allRows(r);
  const skillColumns = SKILL_IDS.map((k) => `share_${k}`);
  const teamFigures = (t: TeamSummary) => [t.agentEpisodes, t.kills, t.deaths, t.kd, t.shotsPerEpisode, t.accuracy, t.pickupsPerEpisode, ...SKILL_IDS.map((k) => t.skillShare[k] ?? null), t.transitionEntropyBits];
  const teamColumns = ['agent_episodes', 'kills', 'deaths', 'kd', 'shots_per_episode', 'accuracy', 'pickups_per_episode', ...skillColumns, 'transition_entropy_bits'];
  return new Map([
    [
      'rows.csv',
      toCsv(
        ['row', 'kind', 'first', 'second', 'episodes', 'first_wins', 'second_wins', 'draws', 'first_win_rate', 'first_win_lower', 'first_win_upper', 'second_win_rate', 'second_win_lower', 'second_win_upper', 'draw_rate', 'draw_lower', 'draw_upper', 'p_decisive', 'p_two_proportion', 'study_first_wins', 'study_second_wins', 'study_draws', 'study_p', 'beside_the_study'],
        rows.map((m) => [m.name, m.kind, m.first, m.second, m.episodes, m.firstWins, m.secondWins, m.draws, ...[m.aRate, m.bRate, m.drawRate].flatMap((i) => [i.estimate, i.lower, i.upper]), m.pDecisive, m.pTwoProportion, m.study?.firstWins, m.study?.secondWins, m.study?.draws, m.study?.p, agreement(m)]),
      ),
    ],
    [
      'agents.csv',
      toCsv(
        ['team', ...teamColumns, 'study_kd', 'study_shots', 'study_accuracy', 'study_pickups'],
        r.agents.map((t) => {
          const s = STUDY.agents[t.team as keyof typeof STUDY.agents];
          return [t.team, ...teamFigures(t), s?.kd, s?.shots, s?.accuracy, s?.pickups];
        }),
      ),
    ],
    [
      'sides.csv',
      toCsv(
        ['row', 'side', 'team', ...teamColumns, 'llm_requests', 'llm_cache_hits', 'llm_failed'],
        rows.flatMap((m) => (m.sides ?? []).map((t, i) => [m.name, i === 0 ? 'first' : 'second', t.team, ...teamFigures(t), t.llm.requests, t.llm.cacheHits, t.llm.failed])),
      ),
    ],
  ]);
}

/** Every row's two sides: skill use, fighting, and the language model's decisions and the cache's share of them. */
function sidesSection(rows: readonly MatchupResult[]): string[] {
  const played = rows.filter((m) => m.sides?.length);
  if (!played.length) return [];
  const share = (agreed: number, choices: number) => (choices ? pct(agreed / choices) : '-');
  const decisions = (d: LlmDecisions) =>
    d.requests
      ? [d.requests.toLocaleString('en-US'), pct(d.cacheHits / d.requests), d.failed.toLocaleString('en-US'), share(d.rules.agreed, d.rules.choices), share(d.rules.heldOut.agreed, d.rules.heldOut.choices)]
      : ['-', '-', '-', '-', '-'];
  return [
    '## How each side played',
    '',
    'Skill use is each side\'s share of skill time. Decisions are the language model\'s answers the side asked for; the cache answers a prompt it has seen before with the answer the model gave then. Rules agreement is the strategist exam taken in play: the share of the applied choices that are the tree\'s rules\' choice for the situation answered, overall and where the current skill differs from it.',
    '',
    table(
      ['row', 'side', ...SKILL_IDS, 'transition entropy (bits)', 'K/D', 'accuracy', 'llm decisions', 'from the cache', 'failed', 'rules agreement in play', 'where the current skill differs'],
      played.flatMap((m) =>
        m.sides!.map((t) => [m.name, t.team, ...SKILL_IDS.map((k) => pct(t.skillShare[k])), num(t.transitionEntropyBits ?? undefined), num(t.kd, 3), pct(t.accuracy), ...decisions(t.llm)]),
      ),
    ),
    '',
  ];
}

const SOURCES = ['ours', 'the study'] as const;
const SOURCE_COLOURS = ['#4c78a8', '#9d9d9d'];

/** Each strategist's share of time per skill, ours beside the study's where it gives one (combat, navigate). */
export function skillPlot(agents: readonly TeamSummary[]): Plot {
  const teams = agents.filter((t) => t.team === 'bt' || t.team === 'llm');
  const rows = teams.flatMap((t) => {
    const study = STUDY.skillUse[t.team as 'llm' | 'bt'] as Partial<Record<SkillId, number>>;
    return SKILL_IDS.flatMap((s) => [[t.team, s, SOURCES[0], t.skillShare[s] ?? 0], ...(study[s] === undefined ? [] : [[t.team, s, SOURCES[1], study[s]]])]);
  });
  return {
    name: 'skills',
    columns: ['team', 'skill', 'source', 'share'],
    rows,
    view: {
      title: { text: 'Share of skill time per strategist', subtitle: 'ours beside the study\'s, where it gives one (combat, navigate)' },
      width: 420,
      height: { step: 14 },
      transform: [{ calculate: "datum.team + ' · ' + datum.skill", as: 'team_skill' }],
      mark: 'bar',
      encoding: {
        y: categoryEncoding('team_skill', 'strategist · skill'),
        yOffset: { field: 'source', sort: [...SOURCES] },
        x: shareEncoding('share', 'share of skill time'),
        color: categoryColours('source', 'source', SOURCES, SOURCE_COLOURS),
        tooltip: [{ field: 'team' }, { field: 'skill' }, { field: 'source' }, { field: 'share', type: 'quantitative', format: '.1%' }],
      },
    },
  };
}

/** Our first team's share of wins with its 95% Wilson interval beside the study's, per matchup. */
export function matchupPlot(ms: readonly MatchupResult[]): Plot {
  const finite = (v: number) => (Number.isFinite(v) ? v : null);
  const rows = ms.flatMap((m) => [
    [m.name, SOURCES[0], m.episodes, m.episodes > 0 ? m.firstWins / m.episodes : null, finite(m.aRate.lower), finite(m.aRate.upper)],
    ...(m.study ? [[m.name, SOURCES[1], null, m.study.firstWins, null, null]] : []),
  ]);
  const y = categoryEncoding('matchup', 'matchup (first vs second)');
  const yOffset = { field: 'source', sort: [...SOURCES] };
  return {
    name: 'matchups',
    columns: ['matchup', 'source', 'episodes', 'first_win_share', 'lower', 'upper'],
    rows,
    view: {
      title: { text: "The first team's wins", subtitle: 'ours with its 95% Wilson interval, beside the study\'s; dashed: 50%' },
      width: 420,
      height: { step: 22 },
      layer: [
        {
          mark: 'bar',
          encoding: {
            y,
            yOffset,
            x: shareEncoding('first_win_share', "first team's share of episodes won"),
            color: categoryColours('source', 'source', SOURCES, SOURCE_COLOURS),
            tooltip: [{ field: 'matchup' }, { field: 'source' }, { field: 'first_win_share', type: 'quantitative', format: '.1%' }],
          },
        },
        intervalLayer({ y, yOffset }, 'lower', 'upper'),
        referenceLayer(0.5),
      ],
    },
  };
}
