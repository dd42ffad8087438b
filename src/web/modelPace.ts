/**
 * Whether a language model keeps up with the game: its decisions answered per game-second
 * over a recent window, against the rate its strategist asks for (one request each period).
 * The model answers at a fixed rate in wall time, so at 4x the game runs four times as
 * many ticks between two answers: the team decides less often per game-second and plays a
 * weaker game. The page tells the person so (the notice over the arena) and offers to wait
 * for the model. Pure: ticks and counts in, no clock.
 */
import { countOf } from '../sim';

/** How the measure judges; the page's are PACE_RULES, tests pass their own. */
export interface PaceRules {
  /** The window looked back over, in game-seconds. */
  readonly windowSeconds: number;
  /** Game-seconds observed before it judges at all (the first answers are not yet in). */
  readonly minSeconds: number;
  /** Behind below this share of the asked decisions. */
  readonly share: number;
}

/**
 * The last 10 game-seconds, judged after 4, behind below 80% of the asked rate. A model that
 * keeps up answers each periodic request and those that events add, so it stays at or above
 * 100%; the margin takes the one request the window's edges may cut.
 */
export const PACE_RULES: PaceRules = { windowSeconds: 10, minSeconds: 4, share: 0.8 };

export interface PaceInput {
  /** The ticks its answers applied at, oldest first (failed calls are not decisions). */
  readonly answerTicks: readonly number[];
  /** The tick the match is at. */
  readonly tick: number;
  /**
   * Where the measure starts: the match's start, or the latest change of speed or of
   * waiting (what came before was played at another pace).
   */
  readonly sinceTick: number;
  /** Ticks between the strategist's fixed-rate requests (0: it asks on events only). */
  readonly periodTicks: number;
  readonly tickHz: number;
}

/** A model's decisions over the window. */
export interface ModelPace {
  /** Decisions answered in the window. */
  readonly decided: number;
  /** Requests its fixed rate asked for in the window. */
  readonly asked: number;
  /** The window's length, in game-seconds. */
  readonly seconds: number;
  /** It decided clearly fewer times than asked. */
  readonly behind: boolean;
}

/** The model's pace over the window, or null where there is none to judge (events only, or too little played since sinceTick). */
export function modelPace(input: PaceInput, rules: PaceRules = PACE_RULES): ModelPace | null {
  const { answerTicks, tick, sinceTick, periodTicks, tickHz } = input;
  if (periodTicks <= 0) return null;
  const from = Math.max(sinceTick, tick - Math.round(rules.windowSeconds * tickHz));
  const ticks = tick - from;
  if (ticks < rules.minSeconds * tickHz) return null;
  // Requests go out on the ticks that are multiples of the period, in [from, tick).
  const asked = Math.ceil(tick / periodTicks) - Math.ceil(from / periodTicks);
  let decided = 0;
  for (let i = answerTicks.length - 1; i >= 0 && answerTicks[i]! >= from; i--) if (answerTicks[i]! < tick) decided++;
  return { decided, asked, seconds: ticks / tickHz, behind: decided < rules.share * asked };
}

/** One team's pace as the notice reads it: its side's name and its measure (null: nothing to judge). */
export interface TeamPace {
  readonly side: string;
  readonly pace: ModelPace | null;
}

/**
 * The notice over the arena where a language model falls behind a game faster than 1x,
 * or null: at 1x and below the game is at the model's own pace, and while the page waits
 * for the model it cannot fall behind. Two models name their sides.
 */
export function paceNotice(speed: number, waiting: boolean, teams: readonly TeamPace[]): string | null {
  if (speed <= 1 || waiting) return null;
  const behind = teams.filter((t): t is { side: string; pace: ModelPace } => t.pace?.behind === true);
  if (behind.length === 0) return null;
  const named = teams.filter((t) => t.pace !== null).length > 1;
  const lines = behind.map(({ side, pace }) => {
    const who = named ? `The language model playing ${side}` : 'The language model';
    return `${who} decides slower than the game at ${speed}x: it decided ${countOf(pace.decided, 'time')} in the last ${Math.round(pace.seconds)} game-seconds, of ${pace.asked} asked.`;
  });
  return lines.join(' ');
}
