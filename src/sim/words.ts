/**
 * Counts in words, for every message, page and report: "1 episode", "6 episodes". The one
 * plural rule, here at the bottom layer so the CLI, the server, the page and the reports
 * all read it.
 */

/** `n` and the noun in the number it takes: countOf(1, 'episode') is "1 episode", countOf(0, 'match', 'matches') "0 matches". */
export function countOf(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
