/**
 * Evaluation of trained policies, each against its scripted reference on its own
 * scenario's measure (seeded episodes, identical for both), and of the model-backed teams
 * in whole matches.
 *
 * - navigate: seconds to reach the zone (capped at the horizon) and the share that reach it
 * - combat:   kills per death against the heuristic team
 * - secure:   seconds inside the zone per agent while the heuristic team attacks
 * - retreat:  share of hurt agents that reach a pickup before they are eliminated
 *
 * The games (GAME_MATCHUPS) are whole matches with sides swapped every other episode,
 * summarised with Wilson intervals (wins, draws, and each team's K/D and accuracy) and
 * checked against the targets the product sets.
 */
import { num, pct } from '../report/format';
import { type Action, OBS_SIZE, deriveSeed, idleAction } from '../sim';
import { type Policy, SCRIPTED_SKILLS, type SkillContext, type SkillId } from '../skills';
import { runMatch } from '../match/match';
import type { MatchSummary } from '../match/metrics';
import { type ProportionInterval, decisiveShare, wilsonInterval } from '../stats';
import { HEURISTIC_POLICY } from '../teams/heuristic';
import type { Platform } from '../teams/platform';
import { teamNeeds } from '../teams/registry';
import { AGENT_NAMES, type AgentName, KothParallelEnv } from './env';
import { SCENARIOS } from './scenarios';

export interface SkillMeasure {
  readonly measure: string;
  readonly unit: string;
  /** true when smaller is better. */
  readonly lowerIsBetter: boolean;
  readonly value: number;
  readonly episodes: number;
}

/** The seeds the shipped cards were evaluated with: the skills' scenarios and the games. */
export const SKILL_SEED = 7;
export const GAME_SEED = 11;

const LEARNERS: readonly AgentName[] = ['blue_0', 'blue_1'];
const OPPONENTS: readonly AgentName[] = ['red_0', 'red_1'];

async function actAll(policy: Policy, obs: Record<string, Float32Array>, names: readonly AgentName[], alive: readonly AgentName[], context: SkillContext) {
  const present = names.filter((n) => alive.includes(n) && obs[n]);
  const batch = new Float32Array(present.length * OBS_SIZE);
  present.forEach((n, i) => batch.set(obs[n]!, i * OBS_SIZE));
  const out: Action[] = present.map(() => idleAction());
  await policy.act(batch, present.length, out, context);
  return Object.fromEntries(present.map((n, i) => [n, out[i]!]));
}

/** Run seeded episodes of a skill's scenario with `policy` on the blue agents. */
export async function measureSkill(skill: SkillId, policy: Policy, episodes: number, seed = SKILL_SEED): Promise<SkillMeasure> {
  const scenario = SCENARIOS[skill];
  const env = new KothParallelEnv(scenario, { horizonSteps: 200 });
  const secondsPerStep = env.world.config.skillEveryTicks / env.world.config.tickHz;
  let total = 0;
  let count = 0;
  let successes = 0;
  for (let e = 0; e < episodes; e++) {
    let obs = env.reset(deriveSeed(seed, 'evaluate', skill, e)).observations;
    const reached = new Map<string, number>();
    const inZoneSteps = new Map<string, number>();
    let step = 0;
    while (env.agents.length > 0 && !env.world.outcome) {
      const actions = {
        ...(await actAll(policy, obs, LEARNERS, env.agents, env.context)),
        ...(await actAll(HEURISTIC_POLICY, obs, OPPONENTS, env.agents, env.context)),
      };
      const result = env.step(actions);
      step++;
      for (const name of LEARNERS) {
        const id = AGENT_NAMES.indexOf(name);
        const agent = env.world.agents[id]!;
        if (agent.inZone && !reached.has(name)) reached.set(name, step * secondsPerStep);
        if (agent.inZone) inZoneSteps.set(name, (inZoneSteps.get(name) ?? 0) + 1);
      }
      obs = { ...obs, ...result.observations };
    }
    const blue = env.world.agents.filter((a) => a.team === 0);
    const kills = blue.reduce((sum, a) => sum + a.stats.kills, 0);
    const deaths = blue.reduce((sum, a) => sum + a.stats.deaths, 0);
    const horizon = step * secondsPerStep;
    if (skill === 'navigate') {
      for (const name of LEARNERS) {
        const t = reached.get(name);
        total += t ?? horizon;
        count++;
        if (t !== undefined) successes++;
      }
    } else if (skill === 'combat') {
      total += kills;
      count += deaths;
    } else if (skill === 'secure') {
      for (const name of LEARNERS) {
        total += (inZoneSteps.get(name) ?? 0) * secondsPerStep;
        count++;
      }
    } else {
      for (const name of LEARNERS) {
        const agent = env.world.agents[AGENT_NAMES.indexOf(name)]!;
        count++;
        if (agent.stats.pickups > 0) successes++;
      }
    }
  }
  switch (skill) {
    case 'navigate':
      return { measure: `seconds to the zone (${((100 * successes) / count).toFixed(0)}% reach it)`, unit: 's', lowerIsBetter: true, value: total / count, episodes };
    case 'combat':
      return { measure: 'kills per death vs heuristic', unit: 'K/D', lowerIsBetter: false, value: total / Math.max(1, count), episodes };
    case 'secure':
      return { measure: 'seconds in the zone per agent under attack', unit: 's', lowerIsBetter: false, value: total / count, episodes };
    case 'retreat':
      return { measure: 'share of hurt agents reaching a pickup', unit: '', lowerIsBetter: false, value: successes / count, episodes };
  }
}

export interface SkillComparison {
  readonly skill: SkillId;
  readonly rl: SkillMeasure;
  readonly scripted: SkillMeasure;
}

/** The skill's policy and its scripted reference on the same seeded episodes. */
export async function compareSkill(skill: SkillId, policy: Policy, episodes: number, seed = SKILL_SEED): Promise<SkillComparison> {
  return { skill, rl: await measureSkill(skill, policy, episodes, seed), scripted: await measureSkill(skill, SCRIPTED_SKILLS[skill], episodes, seed) };
}

/** One team's fighting over a matchup's games, summed over its agents. */
export interface CombatTally {
  readonly kills: number;
  readonly deaths: number;
  readonly shots: number;
  readonly hits: number;
  /** Agents times games: the shots per agent-episode divide by it (the study's "shots" column). */
  readonly agentEpisodes: number;
}

export interface WinRate {
  readonly first: string;
  readonly second: string;
  readonly episodes: number;
  readonly firstWins: number;
  readonly secondWins: number;
  readonly draws: number;
  /** Each team's fighting, when the games' agent figures were kept. */
  readonly combat?: { readonly first: CombatTally; readonly second: CombatTally };
}

/** The side that won a match, as its summary says. */
export type WinningSide = MatchSummary['winner'];

/** What one game leaves for the evaluation: who won and every agent's fighting. */
export interface GamePlayed {
  readonly winner: WinningSide;
  readonly agents: readonly Pick<MatchSummary['agents'][number], 'team' | 'kills' | 'deaths' | 'shots' | 'hits'>[];
}

/** One game of a matchup: which team plays blue, and the match's seed. */
export interface PlannedGame {
  readonly index: number;
  readonly blue: string;
  readonly red: string;
  readonly seed: number;
  /** false on odd episodes: sides swap every other game, so neither team always starts from the same base. */
  readonly firstIsBlue: boolean;
}

/**
 * The games of `first` vs `second`. The seed of a game depends on its index only, so every
 * matchup plays the same arenas (and the shipped cards' figures reproduce).
 */
export function planGames(first: string, second: string, episodes: number, seed = GAME_SEED): PlannedGame[] {
  return Array.from({ length: episodes }, (_, index) => {
    const firstIsBlue = index % 2 === 0;
    return { index, blue: firstIsBlue ? first : second, red: firstIsBlue ? second : first, seed: deriveSeed(seed, 'winrate', index), firstIsBlue };
  });
}

/** Play one planned game in this process. */
export async function playGame(platform: Platform, game: PlannedGame): Promise<GamePlayed> {
  const match = await runMatch({ blue: game.blue, red: game.red, seed: game.seed }, { platform, record: false });
  const { winner, agents } = match.summary();
  return { winner, agents };
}

/** Each team's kills, deaths, shots and hits over the games, by the side each played in each game. */
export function tallyCombat(games: readonly PlannedGame[], played: readonly GamePlayed[]): { first: CombatTally; second: CombatTally } {
  if (played.length !== games.length) throw new Error(`${games.length} games planned but ${played.length} played`);
  const empty = (): { -readonly [K in keyof CombatTally]: number } => ({ kills: 0, deaths: 0, shots: 0, hits: 0, agentEpisodes: 0 });
  const first = empty();
  const second = empty();
  games.forEach((game, i) => {
    for (const agent of played[i]!.agents) {
      const team = (agent.team === 'blue') === game.firstIsBlue ? first : second;
      team.kills += agent.kills;
      team.deaths += agent.deaths;
      team.shots += agent.shots;
      team.hits += agent.hits;
      team.agentEpisodes++;
    }
  });
  return { first, second };
}

/** The games counted from `first`'s side: `winners[i]` is the side that won `games[i]`. */
export function countWins(first: string, second: string, games: readonly PlannedGame[], winners: readonly WinningSide[]): WinRate {
  if (winners.length !== games.length) throw new Error(`${first} vs ${second}: ${games.length} games planned but ${winners.length} results`);
  let firstWins = 0;
  let secondWins = 0;
  let draws = 0;
  games.forEach((game, i) => {
    const winner = winners[i]!;
    if (winner === 'draw') draws++;
    else if ((winner === 'blue') === game.firstIsBlue) firstWins++;
    else secondWins++;
  });
  return { first, second, episodes: games.length, firstWins, secondWins, draws };
}

/** The games' wins and each team's fighting. */
export function gameFigures(first: string, second: string, games: readonly PlannedGame[], played: readonly GamePlayed[]): WinRate {
  return { ...countWins(first, second, games, played.map((p) => p.winner)), combat: tallyCombat(games, played) };
}

/** Seeded matches with sides swapped every other episode, played one after another in this process. */
export async function winRate(platform: Platform, first: string, second: string, episodes: number, seed = GAME_SEED): Promise<WinRate> {
  const games = planGames(first, second, episodes, seed);
  const played: GamePlayed[] = [];
  for (const game of games) played.push(await playGame(platform, game));
  return gameFigures(first, second, games, played);
}

/** The confidence of every interval the evaluation reports. */
export const CONFIDENCE = 0.95;

/**
 * A team's fighting with intervals: accuracy is hits of shots (Wilson); K/D is kills per
 * death, its interval the Wilson interval of kills among kills and deaths mapped through
 * p / (1 - p) (each kill or death counted as one trial; an upper bound at p = 1 is
 * unbounded, written null).
 */
export interface CombatSummary extends CombatTally {
  /** kills / deaths; null without deaths. */
  readonly kd: number | null;
  readonly kdInterval: { readonly lower: number; readonly upper: number | null } | null;
  readonly accuracy: ProportionInterval | null;
  readonly shotsPerAgentEpisode: number | null;
}

export function summarizeCombat(tally: CombatTally, confidence = CONFIDENCE): CombatSummary {
  const events = tally.kills + tally.deaths;
  const share = events > 0 ? wilsonInterval(tally.kills, events, confidence) : null;
  const odds = (p: number) => (p >= 1 ? null : p / (1 - p));
  return {
    ...tally,
    kd: tally.deaths > 0 ? tally.kills / tally.deaths : null,
    kdInterval: share ? { lower: odds(share.lower)!, upper: odds(share.upper) } : null,
    accuracy: tally.shots > 0 ? wilsonInterval(tally.hits, tally.shots, confidence) : null,
    shotsPerAgentEpisode: tally.agentEpisodes > 0 ? tally.shots / tally.agentEpisodes : null,
  };
}

/** A win rate with Wilson intervals for each share. */
export interface WinRateSummary extends WinRate {
  readonly confidence: number;
  readonly firstWin: ProportionInterval;
  readonly secondWin: ProportionInterval;
  readonly draw: ProportionInterval;
  /** Games that were not draws. */
  readonly decisive: number;
  /** first's wins among the decisive games; null when every game was a draw. */
  readonly firstShareOfDecisive: ProportionInterval | null;
  /** Each team's K/D and accuracy with intervals, when the games' fighting was kept. */
  readonly firstCombat?: CombatSummary;
  readonly secondCombat?: CombatSummary;
}

/** Wilson intervals for a win rate's shares; throws when it has no games or its counts don't add up. */
export function summarizeWinRate(rate: WinRate, confidence = CONFIDENCE): WinRateSummary {
  const { first, second, episodes, firstWins, secondWins, draws } = rate;
  if (episodes === 0) throw new Error(`${first} vs ${second}: no games, so no shares to estimate`);
  if (firstWins + secondWins + draws !== episodes) {
    throw new Error(`${first} vs ${second}: ${firstWins} wins + ${secondWins} losses + ${draws} draws is not the ${episodes} games played`);
  }
  const decisive = firstWins + secondWins;
  return {
    first,
    second,
    episodes,
    firstWins,
    secondWins,
    draws,
    confidence,
    firstWin: wilsonInterval(firstWins, episodes, confidence),
    secondWin: wilsonInterval(secondWins, episodes, confidence),
    draw: wilsonInterval(draws, episodes, confidence),
    decisive,
    firstShareOfDecisive: decisiveShare(firstWins, secondWins, confidence),
    ...(rate.combat ? { combat: rate.combat, firstCombat: summarizeCombat(rate.combat.first, confidence), secondCombat: summarizeCombat(rate.combat.second, confidence) } : {}),
  };
}

/** What a matchup's first team must achieve. */
export interface GameTarget {
  /** The target in words, as the report and the cards state it. */
  readonly description: string;
  /**
   * Whether the counts meet it, on the observed shares (the intervals beside them say how
   * sure that is). Compared in whole numbers, so a share exactly at the bound is met
   * without floating-point rounding deciding it.
   */
  readonly met: (rate: WinRate) => boolean;
}

/** A game the evaluation plays: `first` vs `second`, and the target `first` must meet. */
export interface GameMatchup {
  /** The key of its figures in a model card's evaluation. */
  readonly key: string;
  readonly first: string;
  readonly second: string;
  readonly target: GameTarget;
}

/** Kills at least `ratio` times deaths (whole numbers: no rounding decides it); false without the fighting's figures. */
const kdAtLeast = (team: CombatTally | undefined, ratio: number) => team !== undefined && team.kills >= ratio * team.deaths && team.kills > 0;

/**
 * The games `npm run evaluate` reports and writes into the cards, in the order it reports
 * them. Flat's targets are the ones its issue sets from the study (its Flat RL: K/D 2.07,
 * 56% accuracy, 16.8% wins against BT).
 */
export const GAME_MATCHUPS: readonly GameMatchup[] = [
  {
    key: 'bt_vs_bt_scripted',
    first: 'bt',
    second: 'bt-scripted',
    target: {
      description: 'bt wins at least 40% of the decisive games against bt-scripted',
      // Draws say nothing about which skills are better, so they are left out; with no decisive game there is nothing to meet it.
      met: (r) => r.firstWins + r.secondWins > 0 && 5 * r.firstWins >= 2 * (r.firstWins + r.secondWins),
    },
  },
  {
    key: 'bt_vs_flat',
    first: 'bt',
    second: 'flat',
    target: {
      description: 'bt wins more games than flat, and flat wins at least 10% of the games or its K/D against bt is at least 1.0',
      met: (r) => r.firstWins > r.secondWins && (10 * r.secondWins >= r.episodes || kdAtLeast(r.combat?.second, 1)),
    },
  },
  {
    key: 'flat_vs_heuristic',
    first: 'flat',
    second: 'heuristic',
    target: {
      description: 'flat wins at least 90% of the games with at most 10% draws, with a K/D of at least 2 and an accuracy of at least 50%',
      met: (r) => {
        const flat = r.combat?.first;
        return r.episodes > 0 && 10 * r.firstWins >= 9 * r.episodes && 10 * r.draws <= r.episodes && kdAtLeast(flat, 2) && flat !== undefined && 2 * flat.hits >= flat.shots;
      },
    },
  },
  {
    key: 'flat_vs_random',
    first: 'flat',
    second: 'random',
    target: { description: 'flat wins more games than random (random skills over the scripted ones)', met: (r) => r.firstWins > r.secondWins },
  },
  {
    key: 'planner_vs_bt',
    first: 'planner',
    second: 'bt',
    target: {
      description: 'planner wins at least 65% of the decisive games against bt (the tree it plans over)',
      met: (r) => r.firstWins + r.secondWins > 0 && 20 * r.firstWins >= 13 * (r.firstWins + r.secondWins),
    },
  },
  {
    key: 'flat_vs_bt_scripted',
    first: 'flat',
    second: 'bt-scripted',
    target: {
      description: 'flat wins at least 10% of the games against bt-scripted or its K/D against it is at least 1.0',
      met: (r) => r.episodes > 0 && (10 * r.firstWins >= r.episodes || kdAtLeast(r.combat?.first, 1)),
    },
  },
];

/** A matchup as played: its summary and the model cards of the policies that played it. */
export interface GameResult {
  readonly matchup: GameMatchup;
  readonly summary: WinRateSummary;
  readonly models: readonly string[];
}

/** The models a matchup's teams declare they play with (bt: the four skills; flat: flat), each once. */
export async function matchupModels(matchup: GameMatchup, platform: Platform): Promise<string[]> {
  const needs = await Promise.all([teamNeeds(matchup.first, platform), teamNeeds(matchup.second, platform)]);
  return [...new Set(needs.flatMap((n) => n.models))];
}

/** A share and its interval: "41.5% [34.9, 48.4]". */
export function describeShare(share: ProportionInterval): string {
  return `${pct(share.estimate)} [${num(100 * share.lower, 1)}, ${num(100 * share.upper, 1)}]`;
}

/** The report's lines for one matchup: wins / losses / draws, first's share of decisive games, and the target. */
export function describeGame(matchup: GameMatchup, summary: WinRateSummary): string[] {
  const { first, second, episodes } = summary;
  const level = `${Number((100 * summary.confidence).toFixed(1))}%`;
  const decisive = summary.firstShareOfDecisive ? `${describeShare(summary.firstShareOfDecisive)} of ${summary.decisive}` : 'none (every game a draw)';
  return [
    `${first} vs ${second}: ${describeShare(summary.firstWin)} / ${describeShare(summary.secondWin)} / ${describeShare(summary.draw)}  (${first} wins / ${second} wins / draws of ${episodes} games, ${level} Wilson intervals)`,
    `  ${first}'s share of the decisive games: ${decisive}`,
    ...(summary.firstCombat ? [`  ${first}: ${describeCombat(summary.firstCombat)}`] : []),
    ...(summary.secondCombat ? [`  ${second}: ${describeCombat(summary.secondCombat)}`] : []),
    `  target: ${matchup.target.description}: ${matchup.target.met(summary) ? 'met' : 'not met'}`,
  ];
}

/** "K/D 2.31 [2.05, 2.60] (412 kills, 178 deaths), accuracy 55.0% [53.1, 56.8] of 9,120 shots, 45.6 shots per agent-episode" */
export function describeCombat(c: CombatSummary): string {
  const interval = c.kdInterval ? ` [${c.kdInterval.lower.toFixed(2)}, ${c.kdInterval.upper === null ? 'inf' : c.kdInterval.upper.toFixed(2)}]` : '';
  const kd = c.kd === null ? (c.kills > 0 ? 'no deaths' : 'no kills or deaths') : `${c.kd.toFixed(2)}${interval}`;
  const accuracy = c.accuracy ? `${describeShare(c.accuracy)} of ${c.shots.toLocaleString('en-US')} shots` : 'no shots';
  const perAgent = c.shotsPerAgentEpisode === null ? '' : `, ${c.shotsPerAgentEpisode.toFixed(1)} shots per agent-episode`;
  return `K/D ${kd} (${c.kills} kills, ${c.deaths} deaths), accuracy ${accuracy}${perAgent}`;
}

/** A matchup's figures as a card stores them: counts, intervals, and the target with whether it was met. */
export function gameRecord(result: GameResult): Record<string, unknown> {
  return { ...result.summary, target: result.matchup.target.description, targetMet: result.matchup.target.met(result.summary) };
}

/**
 * The `evaluation` of model card `name`: its skill's scenario figures when it is a skill
 * (as before), every game its policy played in under the matchup's key, the episodes, and
 * the command that made them.
 */
export function cardEvaluation(name: string, skill: SkillComparison | undefined, games: readonly GameResult[], episodes: number, command: string): Record<string, unknown> {
  const played = games.filter((g) => g.models.includes(name));
  return {
    ...(skill ? { scenario: skill.rl.measure, rl: skill.rl.value, scripted: skill.scripted.value } : {}),
    episodes,
    ...Object.fromEntries(played.map((g) => [g.matchup.key, gameRecord(g)])),
    command,
  };
}
