/**
 * Games for an adapter's card and for the round of learning from play: seeded matches of a
 * team against opponents, sides swapped every other game (train/evaluate.ts planGames), in
 * this process. The round keeps each game's replay; the card keeps the counts.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Match, parseReplay, runMatch } from '../match';
import { type Platform, llmStrategistOf } from '../teams';
import { type WinningSide, countWins, planGames, summarizeWinRate } from '../train/evaluate';
import type { GameRow } from '../llm/node/adapterCard';
import { binomialTestExact } from '../stats/proportions';
import { type AskedDecision, askedPathOf } from './teachers';

export interface SeriesOptions {
  readonly games: number;
  readonly seed: number;
  /** Where each game's replay goes (game-<opponent>-<n>.json); none kept when absent. */
  readonly replays?: string;
  readonly onGame?: (done: number, total: number) => void;
}

/** `team` against each opponent, `games` games each. */
export async function playSeries(platform: Platform, team: string, opponents: readonly string[], options: SeriesOptions): Promise<GameRow[]> {
  if (options.replays) mkdirSync(options.replays, { recursive: true });
  const rows: GameRow[] = [];
  let done = 0;
  for (const opponent of opponents) {
    const games = planGames(team, opponent, options.games, options.seed);
    const winners: WinningSide[] = [];
    for (const game of games) {
      const file = options.replays ? join(options.replays, `game-${opponent.replace(/[^A-Za-z0-9._-]+/g, '_')}-${String(game.index).padStart(4, '0')}.json`) : undefined;
      const kept = file ? keptWinner(file, game) : null;
      if (kept) winners.push(kept);
      else {
        const match = await runMatch({ blue: game.blue, red: game.red, seed: game.seed }, { platform, record: file !== undefined });
        winners.push(match.summary().winner);
        if (file) {
          // The answers first: a replay on disk means its game is whole (a stopped round resumes after it).
          writeFileSync(askedPathOf(file), JSON.stringify(askedOf(match)));
          writeFileSync(file, JSON.stringify(match.replay()));
        }
      }
      options.onGame?.(++done, options.games * opponents.length);
    }
    const summary = summarizeWinRate(countWins(team, opponent, games, winners));
    const outcomes = games.map((game, i) => (winners[i] === 'draw' ? 'D' : (winners[i] === 'blue') === game.firstIsBlue ? 'W' : 'L')).join('');
    rows.push({
      opponent,
      games: summary.episodes,
      wins: summary.firstWins,
      losses: summary.secondWins,
      draws: summary.draws,
      winRate: summary.firstWin,
      decisiveShare: summary.firstShareOfDecisive?.estimate ?? null,
      outcomes,
    });
  }
  return rows;
}

/**
 * The winner of a game a stopped round already played: its replay, if it is on disk with
 * its answers, is for this game (teams and seed) and finished; else null, and it is played.
 */
function keptWinner(file: string, game: { readonly blue: string; readonly red: string; readonly seed: number }): WinningSide | null {
  if (!existsSync(file) || !existsSync(askedPathOf(file))) return null;
  try {
    const replay = parseReplay(readFileSync(file, 'utf8'), file);
    const same = replay.seed === game.seed && replay.teams.blue === game.blue && replay.teams.red === game.red;
    return same && replay.outcome !== 'unfinished' ? replay.outcome : null;
  } catch {
    return null;
  }
}

/** Every answer the match's language-model strategists gave, changed skills or not. */
export function askedOf(match: Match): AskedDecision[] {
  return match.controllers.flatMap((controller) =>
    (llmStrategistOf(controller)?.records ?? []).flatMap((r) => (r.ok && r.skills ? [{ tick: r.requestTick, team: r.team, skills: r.skills }] : [])),
  );
}

/** The share of all games won over several rows. */
export function overallWinShare(rows: readonly GameRow[]): number {
  const games = rows.reduce((n, r) => n + r.games, 0);
  return games === 0 ? 0 : rows.reduce((n, r) => n + r.wins, 0) / games;
}

/** A result's points: a win 1, a draw 1/2. */
const POINTS: Readonly<Record<string, number>> = { W: 1, D: 0.5, L: 0 };

/** Two adapters on the same games, game by game: where the second did better, where worse, and the exact sign test's two-sided p. */
export interface PairedGames {
  readonly games: number;
  readonly better: number;
  readonly worse: number;
  readonly p: number;
}

/**
 * How `after` did against `before` on the same seeded games (each row's outcomes, opponent
 * by opponent). Why game by game: the card's few games per opponent cannot separate two
 * adapters by their totals. A round of play whose card games favoured it 7 wins to 5 then
 * lost all 30 of the reproduction's games against bt, where imitation won 3 and drew 2.
 */
export function pairedGames(before: readonly GameRow[], after: readonly GameRow[]): PairedGames {
  let games = 0;
  let better = 0;
  let worse = 0;
  for (const row of after) {
    const earlier = before.find((r) => r.opponent === row.opponent);
    if (!earlier?.outcomes || !row.outcomes || earlier.outcomes.length !== row.outcomes.length) {
      throw new Error(`the games against ${row.opponent} were not played alike by both adapters: they cannot be compared game by game`);
    }
    for (let i = 0; i < row.outcomes.length; i++) {
      const change = POINTS[row.outcomes[i]!]! - POINTS[earlier.outcomes[i]!]!;
      games++;
      if (change > 0) better++;
      else if (change < 0) worse++;
    }
  }
  const p = better + worse === 0 ? 1 : binomialTestExact(better, better + worse).p;
  return { games, better, worse, p };
}

/** The significance a round of play must reach to replace imitation: it must be shown better, not just look it. */
export const PAIRED_ALPHA = 0.05;

/** Whether `after` is shown better than `before` on their paired games. */
export function shownBetter(paired: PairedGames): boolean {
  return paired.better > paired.worse && paired.p < PAIRED_ALPHA;
}
