/**
 * The tournament report a researcher takes into a paper: finite rating intervals (or the
 * reason there are none, and which estimate is shown), plots with axes and colour scales
 * on a light theme, the data of every plot and table as CSV beside it, and the episodes as
 * one flat table.
 */
import { describe, expect, it } from 'vitest';
import { HEATMAP_COLS, HEATMAP_ROWS } from '../../src/match';
import { EPISODE_COLUMNS, episodesCsv } from '../../src/tournament/episodeTable';
import type { EpisodeRecord } from '../../src/tournament/records';
import { REPORT_STYLE } from '../../src/report/page';
import { reportMarkdown, reportText, tournamentReportFiles } from '../../src/tournament/report';
import { summarizeTournament } from '../../src/tournament/summary';

const TEAMS = ['A', 'B', 'C'];

/** An episode of `a` vs `b` (index `index`), won by `winner` (null: a draw), with one agent a side. */
function record(a: string, b: string, index: number, winner: string | null): EpisodeRecord {
  const blue = index % 2 === 0 ? a : b;
  const red = index % 2 === 0 ? b : a;
  const winnerSide = winner === null ? 'draw' : winner === blue ? 'blue' : 'red';
  const agent = (team: 'blue' | 'red', controller: string, won: boolean) => ({
    agent: team === 'blue' ? 0 : 1,
    team,
    controller,
    kills: won ? 2 : 0,
    deaths: won ? 0 : 2,
    shots: 10,
    hits: won ? 8 : 3,
    accuracy: won ? 0.8 : 0.3,
    damageDealt: won ? 80 : 30,
    pickups: 1,
    skillSeconds: {},
    skillTransitions: {},
  });
  const heat = (side: number) => Array.from({ length: HEATMAP_COLS * HEATMAP_ROWS }, (_, i) => (i === side ? 10 : 1));
  return {
    key: `${a}|${b}|${index}`,
    a,
    b,
    index,
    seed: 1000 + index,
    blue,
    red,
    matchup: `${a} vs ${b}`,
    winner,
    winnerSide,
    durationSeconds: 12.34,
    progress: { blue: winnerSide === 'blue' ? 8 : 1, red: winnerSide === 'red' ? 8 : 1 },
    decisions: { blue: 3, red: 4 },
    agents: [agent('blue', blue, winnerSide === 'blue'), agent('red', red, winnerSide === 'red')],
    behaviour: { firstContactSeconds: 2.5, heatmap: { blue: heat(3), red: heat(12) } },
    hash: `h${index}`,
    tournament: 't-1',
    tournamentSeed: 1,
  } as EpisodeRecord;
}

/** A never loses (10-0 against each); B beats C 6-4. */
const records: EpisodeRecord[] = [
  ...Array.from({ length: 10 }, (_, i) => record('A', 'B', i, 'A')),
  ...Array.from({ length: 10 }, (_, i) => record('A', 'C', i, 'A')),
  ...Array.from({ length: 10 }, (_, i) => record('B', 'C', i, i < 6 ? 'B' : 'C')),
];

describe('the tournament report', () => {
  const summary = summarizeTournament(records, TEAMS, 1);

  it('gives finite rating intervals where a team never lost, and says why plain maximum likelihood cannot', () => {
    expect(summary.ratings).not.toBeNull();
    for (const r of summary.ratings!) expect([r.rating, r.lower, r.upper].every(Number.isFinite)).toBe(true);
    expect(summary.ratings!.map((r) => r.team)).toEqual(['A', 'B', 'C']);
    expect(summary.ratingsSeparation).toMatch(/"A" won every game against teams "B", "C"/);
    const md = reportMarkdown(summary, 'T', 'settings');
    expect(md).toContain('Plain maximum likelihood gives no finite rating here: teams "A" won every game');
    expect(md).toContain('The ratings and intervals shown are the estimates under the prior');
    // (A's K/D is rightly inf: it never died. No interval is.)
    expect(md).toMatch(/\| A \| \d+ \| \[\d+, \d+\] \| 20 \| 20-0-0 \|/);
    expect(md).not.toMatch(/\[-?inf|inf\]/);
    expect(reportText(summary)).not.toMatch(/\[-?inf|inf\]/);
  });

  it('writes every plot as SVG with axes, a legend or colour scale, a light background, its CSV and its Vega-Lite spec', async () => {
    const files = await tournamentReportFiles(records, summary, 'T', 'settings');
    for (const plot of ['outcomes', 'ratings', 'heatmaps']) {
      const svg = files.get(`${plot}.svg`)!;
      expect(svg).toMatch(/^<svg/);
      expect(svg).toContain('<rect width="' /* the background */);
      expect(svg).toMatch(/fill="white"/);
      expect(svg).toContain('role-axis');
      const spec = JSON.parse(files.get(`${plot}.vl.json`)!);
      expect(spec.data.url).toBe(`${plot}.csv`);
      expect(spec.config.background).toBe('white');
      expect(files.get(`${plot}.csv`)!.split('\r\n')[0]).toMatch(/^[a-z_,]+$/);
    }
    // Axis titles and the colour scales.
    expect(files.get('outcomes.svg')).toContain('share of episodes');
    expect(files.get('outcomes.svg')).toContain('role-legend');
    expect(files.get('ratings.svg')).toContain('rating (Elo scale)');
    expect(files.get('heatmaps.svg')).toContain('share of time');
    expect(files.get('heatmaps.svg')).toContain('role-legend');
    // The data behind the plots: three outcomes per matchup, 40 cells per entrant.
    expect(files.get('outcomes.csv')!.trim().split('\r\n')).toHaveLength(1 + 3 * 3);
    expect(files.get('outcomes.csv')).toContain('A vs B,A,B,first team wins,0,10,10,1,');
    expect(files.get('heatmaps.csv')!.trim().split('\r\n')).toHaveLength(1 + 3 * HEATMAP_COLS * HEATMAP_ROWS);
    expect(files.get('ratings.csv')!.split('\r\n')[1]).toMatch(/^A,\d+\.\d+,\d+\.\d+,\d+\.\d+,20,20,0,0,1,1$/);
  });

  it('writes every table as CSV and links each file from the report', async () => {
    const files = await tournamentReportFiles(records, summary, 'T', 'settings');
    expect(files.get('matchups.csv')!.split('\r\n')[1]).toMatch(/^A vs B,A,B,10,10,0,0,1,/);
    expect(files.get('teams.csv')!.split('\r\n')[0]).toContain('team,agent_episodes,kills,deaths,kd');
    expect(files.get('teams.csv')).toContain('\r\nA,20,40,0,Inf,');
    expect(files.get('behaviour.csv')!.trim().split('\r\n')).toHaveLength(4);
    expect(files.get('divergence.csv')!.trim().split('\r\n')).toHaveLength(1 + 9);
    const md = files.get('report.md')!;
    const html = files.get('report.html')!;
    for (const name of ['outcomes.svg', 'ratings.svg', 'heatmaps.svg', 'matchups.csv', 'teams.csv', 'behaviour.csv', 'divergence.csv', 'episodes.csv', 'outcomes.vl.json']) {
      expect(files.has(name)).toBe(true);
      expect(md).toContain(`(${name})`);
      expect(html).toContain(`href="${name}"`);
    }
    expect(html).toContain('<img src="outcomes.svg"');
    expect(html).toContain(`<style>\n${REPORT_STYLE}\n`); // the one report page, print-ready on white
  });

  it('exports the episodes as one flat table, one row each, by matchup and index', () => {
    const lines = episodesCsv([...records].reverse()).trim().split('\r\n');
    expect(lines[0]).toBe(EPISODE_COLUMNS.join(','));
    expect(lines).toHaveLength(1 + records.length);
    const row = (n: number) => Object.fromEntries(lines[0]!.split(',').map((c, i) => [c, lines[n]!.split(',')[i]]));
    // The first row is A vs B, episode 0 (blue A, red B), won by A.
    expect(row(1)).toMatchObject({ matchup: 'A vs B', first: 'A', second: 'B', index: '0', seed: '1000', blue: 'A', red: 'B', first_side: 'blue', winner: 'A', winner_side: 'blue', first_result: 'win', duration_s: '12.34', ticks: '617', blue_kills: '2', red_deaths: '2', blue_shots: '10', blue_hits: '8', blue_accuracy: '0.8', first_contact_s: '2.5', tournament: 't-1' });
    // Episode 1 swaps sides; a C win over B is a loss for the first team.
    expect(row(2)).toMatchObject({ index: '1', blue: 'B', red: 'A', first_side: 'red', winner_side: 'red' });
    const cLoss = lines.findIndex((l) => l.startsWith('t-1,1,B|C|7,'));
    expect(row(cLoss)).toMatchObject({ winner: 'C', first_result: 'loss' });
  });
});
