/**
 * The game's rules in words for people (the page's introduction, a study's instructions),
 * computed from the config they describe, so a study of 20-second episodes never tells its
 * participants about 60 seconds.
 */
import type { GameConfig } from '../sim';

const NUMBER_WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'];

/** "two" for 2, the digits past eight. */
export function numberWord(n: number): string {
  return NUMBER_WORDS[n] ?? String(n);
}

/** "8 seconds", "1 second", "0.5 seconds". */
export function secondsText(seconds: number): string {
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/** What an elimination costs a team's zone progress, in words: "half of its progress". */
function progressLost(kept: number): string {
  const lost = 1 - kept;
  if (lost <= 0) return 'none of its progress';
  if (lost >= 1) return 'all of its progress';
  if (lost === 0.5) return 'half of its progress';
  return `${Math.round(lost * 100)}% of its progress`;
}

export interface RulesTextOptions {
  /** Tell the reader which team is theirs (people play blue). */
  readonly yourTeam?: boolean;
  /** What one game is called: 'episode' in a study, 'match' on the page. */
  readonly game?: string;
}

/** The rules as one paragraph: the zone, the hold that wins, eliminations, pickups and the draw. */
export function rulesText(config: GameConfig, options: RulesTextOptions = {}): string {
  const game = options.game ?? 'match';
  return [
    `Two teams of ${numberWord(config.agent.perTeam)} fight over one circular zone.`,
    ...(options.yourTeam ? ['Your team is blue.'] : []),
    `Hold the zone alone for ${secondsText(config.winHoldSeconds)} in total to win.`,
    `When a player is eliminated, their team loses ${progressLost(config.progressKeptOnElimination)} and the player returns to base ${secondsText(config.respawnDelay)} later.`,
    ...(config.pickups.positions.length > 0 ? [`Green crosses restore health and come back ${secondsText(config.pickups.respawn)} after they are taken.`] : []),
    `After ${secondsText(config.episodeSeconds)} without a winner, the ${game} is a draw.`,
  ].join(' ');
}
