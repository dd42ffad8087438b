/**
 * A tournament summary as text for the terminal, report.md and report.html, and the files
 * a researcher takes into a paper beside them: every plot as SVG with its Vega-Lite spec
 * and its data as CSV (outcomes per matchup with Wilson intervals, ratings with bootstrap
 * intervals, where each entrant's agents were), every table as CSV, and the episodes as
 * one flat CSV (./episodeTable).
 */
import { HEATMAP_COLS } from '../match';
import type { CsvValue } from '../report/csv';
import { toCsv } from '../report/csv';
import { escapeXml, htmlTable, interval as ci, markdownTable as table, num, pct, pValue } from '../report/format';
import { htmlPage } from '../report/page';
import { type Plot, categoryColours, categoryEncoding, intervalLayer, plotFigureHtml, plotFiles, referenceLayer, shareEncoding } from '../report/plot';
import { SKILL_IDS } from '../skills';
import type { BehaviourComparison } from './behaviour';
import { episodesCsv } from './episodeTable';
import type { EpisodeRecord } from './records';
import { type MatchupSummary, RATING_PRIOR_DRAWS, type TeamSummary, type TournamentSummary } from './summary';
import { countOf } from '../sim';

function matchupRows(ms: readonly MatchupSummary[]): string[][] {
  return ms.map((m) => [`${m.a} vs ${m.b}`, String(m.episodes), ci(m.aRate), ci(m.bRate), ci(m.drawRate), pValue(m.pTwoProportion), pValue(m.pDecisive), num(m.meanDurationSeconds, 1)]);
}

/** Each matchup whose tests were held back, with why (one rule for every report: src/stats/heldBack.ts). */
function heldBackLines(ms: readonly MatchupSummary[]): string[] {
  return ms.filter((m) => m.heldBack !== null).map((m) => `${m.a} vs ${m.b}: ${m.heldBack}`);
}

function teamRows(ts: readonly TeamSummary[]): string[][] {
  return ts.map((t) => [
    t.team,
    String(t.agentEpisodes),
    num(t.kd, 3),
    num(t.shotsPerEpisode, 1),
    t.accuracy === null ? '-' : pct(t.accuracy),
    num(t.pickupsPerEpisode, 2),
    ...SKILL_IDS.map((s) => (t.skillShare[s] === undefined ? '-' : pct(t.skillShare[s]))),
    t.transitionEntropyBits === null ? '-' : num(t.transitionEntropyBits, 2),
  ]);
}

const BEHAVIOUR_HEADER = ['team', ...SKILL_IDS.map((s) => `${s} share`), 'switches/agent/min', 'place entropy (bits)', 'first contact s'];

function behaviourRows(b: BehaviourComparison): string[][] {
  return b.profiles.map((p) => [
    p.team,
    ...SKILL_IDS.map((_, i) => (p.skillShare ? pct(p.skillShare[i]!) : '-')),
    p.switchesPerMinute === null ? '-' : num(p.switchesPerMinute, 1),
    num(p.heatmapEntropyBits, 2),
    p.firstContactSeconds === null ? '-' : num(p.firstContactSeconds, 1),
  ]);
}

function divergenceRows(b: BehaviourComparison): string[][] {
  return b.profiles.map((p, i) => [p.team, ...b.profiles.map((_, j) => {
    const skill = b.skillDivergence[i]![j];
    return `${skill === null || skill === undefined ? '-' : num(skill, 3)} / ${num(b.placeDivergence[i]![j]!, 3)}`;
  })]);
}

function coverageLine(b: BehaviourComparison): string {
  return `Coverage: ${countOf(b.clusters.length, 'distinct behaviour')} among ${b.profiles.length} entrants (two entrants count as one when the mean of their skill and place divergences is under ${b.threshold} bits): ${b.clusters.map((c) => `{${c.join(', ')}}`).join(' ')}.`;
}

function behaviourMarkdown(b: BehaviourComparison): string[] {
  return [
    '## Behaviour',
    '',
    'Skill use (share of skill time), skill switches per agent per minute, the entropy of where living agents were (8 x 5 cells, seen from their own base) and the mean time to the first hit of a match.',
    '',
    table(BEHAVIOUR_HEADER, behaviourRows(b)),
    '',
    'Jensen-Shannon divergence between entrants, bits: skill use / places.',
    '',
    table(['', ...b.profiles.map((p) => p.team)], divergenceRows(b)),
    '',
    coverageLine(b),
    '',
  ];
}

const MATCHUP_HEADER = ['matchup', 'episodes', 'first wins (95% CI)', 'second wins (95% CI)', 'draws (95% CI)', 'p (two-proportion)', 'p (decisive vs 50%)', 'mean s'];
const TEAM_HEADER = ['team', 'agent-episodes', 'K/D', 'shots/ep', 'accuracy', 'pickups/ep', ...SKILL_IDS, 'transition entropy (bits)'];

const INTERVALS_NOTE = 'Intervals are 95% Wilson score intervals. "p (decisive vs 50%)" tests the first team\'s share of decisive games against 50% (the study\'s test); "p (two-proportion)" compares the two teams\' win rates.';

/** How the ratings were made, and, where plain maximum likelihood has none, why and which estimate is shown. */
export function ratingsExplanation(s: TournamentSummary): string {
  if (!s.ratings) return `No ratings: ${s.ratingsNote ?? 'no games'}.`;
  const method = `Bradley-Terry on the Elo scale (mean 1500; a 100-point gap means a 64% expected score), draws as half wins, with a weak prior: as if every pair had also drawn ${countOf(RATING_PRIOR_DRAWS, 'game')}. Intervals are 95% parametric-bootstrap intervals.`;
  return s.ratingsSeparation
    ? `${method} Plain maximum likelihood gives no finite rating here: ${s.ratingsSeparation}. The ratings and intervals shown are the estimates under the prior, which keeps the gap finite; they rank the teams, but the size of a gap to a team that never lost (or never won) rests on the prior.`
    : method;
}

const ratingRows = (s: TournamentSummary): string[][] =>
  (s.ratings ?? []).map((r) => [r.team, num(r.rating, 0), `[${num(r.lower, 0)}, ${num(r.upper, 0)}]`, String(r.games), `${r.wins}-${r.losses}-${r.draws}`]);
const RATING_HEADER = ['team', 'rating', '95% interval', 'games', 'W-L-D'];

/** The plots and tables written beside the report: file stem, title, and what it shows. */
const FILES = {
  outcomes: 'outcomes per matchup (plot)',
  ratings: 'ratings with intervals (plot)',
  heatmaps: 'where each entrant\'s agents were (plot)',
  matchups: 'matchups (table)',
  teams: 'teams (table)',
  behaviour: 'behaviour (table)',
  divergence: 'behaviour divergence (table)',
  episodes: 'every episode, one row each (table)',
} as const;

function dataLine(names: readonly (keyof typeof FILES)[]): string {
  return `Data: ${names.map((n) => `[${n}.csv](${n}.csv)`).join(', ')}${names.some((n) => n in PLOT_NAMES) ? `; Vega-Lite specs to restyle: ${names.filter((n) => n in PLOT_NAMES).map((n) => `[${n}.vl.json](${n}.vl.json)`).join(', ')}` : ''}.`;
}
const PLOT_NAMES = { outcomes: true, ratings: true, heatmaps: true } as const;

export function reportMarkdown(s: TournamentSummary, title: string, settings: string): string {
  const parts = [
    `# ${title}`,
    '',
    settings,
    '',
    `${s.episodes} episodes. ${INTERVALS_NOTE}`,
    '',
    '## Matchups',
    '',
    '![Outcomes per matchup](outcomes.svg)',
    '',
    table(MATCHUP_HEADER, matchupRows(s.matchups)),
    '',
    ...(heldBackLines(s.matchups).length ? ['Tests held back ("-" above):', '', ...heldBackLines(s.matchups).map((l) => `- ${l}`), ''] : []),
    dataLine(['outcomes', 'matchups', 'episodes']),
    '',
    '## Teams (per agent)',
    '',
    table(TEAM_HEADER, teamRows(s.teams)),
    '',
    dataLine(['teams']),
    '',
    '## Ratings',
    '',
    ratingsExplanation(s),
    '',
  ];
  if (s.ratings) parts.push('![Ratings](ratings.svg)', '', table(RATING_HEADER, ratingRows(s)), '', dataLine(['ratings']), '');
  parts.push(...behaviourMarkdown(s.behaviour), '![Where each entrant\'s agents were](heatmaps.svg)', '', dataLine(['heatmaps', 'behaviour', 'divergence']), '');
  return `${parts.join('\n')}\n`;
}

export function reportText(s: TournamentSummary): string {
  // Columns as wide as the longest name (variants have long ones).
  const w = Math.max(16, ...s.teams.map((t) => t.team.length + 2));
  const mw = Math.max(32, ...s.matchups.map((m) => `${m.a} vs ${m.b}`.length + 2));
  const lines = [`${'matchup'.padEnd(mw)}${'first wins'.padEnd(24)}${'second wins'.padEnd(24)}${'draws'.padEnd(24)}p(decisive)`];
  for (const m of s.matchups) {
    lines.push(`${`${m.a} vs ${m.b}`.padEnd(mw)}${ci(m.aRate).padEnd(24)}${ci(m.bRate).padEnd(24)}${ci(m.drawRate).padEnd(24)}${pValue(m.pDecisive)}`);
  }
  for (const line of heldBackLines(s.matchups)) lines.push(`held back: ${line}`);
  lines.push('', `${'team'.padEnd(w)}K/D     shots/ep  accuracy  pickups/ep  transition entropy`);
  for (const t of s.teams) {
    lines.push(`${t.team.padEnd(w)}${num(t.kd, 3).padEnd(8)}${num(t.shotsPerEpisode, 1).padEnd(10)}${(t.accuracy === null ? '-' : pct(t.accuracy)).padEnd(10)}${num(t.pickupsPerEpisode, 2).padEnd(12)}${t.transitionEntropyBits === null ? '-' : `${num(t.transitionEntropyBits)} bits`}`);
  }
  lines.push('', ratingsExplanation(s));
  if (s.ratings) {
    lines.push(`${'team'.padEnd(w)}rating  95% interval`);
    for (const r of s.ratings) lines.push(`${r.team.padEnd(w)}${num(r.rating, 0).padStart(6)}  [${num(r.lower, 0)}, ${num(r.upper, 0)}]`);
  }
  lines.push('', coverageLine(s.behaviour));
  return lines.join('\n');
}


const OUTCOMES = ['first team wins', 'draws', 'second team wins'] as const;

/** Stacked shares of first wins, draws and second wins per matchup, with Wilson intervals on the wins. */
export function outcomesPlot(ms: readonly MatchupSummary[]): Plot {
  const rows = ms.flatMap((m) => {
    const n = m.episodes;
    const share = (k: number) => (n > 0 ? k / n : null);
    const cells: [string, number, MatchupSummary['aRate']][] = [
      [OUTCOMES[0], m.aWins, m.aRate],
      [OUTCOMES[1], m.draws, m.drawRate],
      [OUTCOMES[2], m.bWins, m.bRate],
    ];
    return cells.map(([outcome, count, i], order) => [`${m.a} vs ${m.b}`, m.a, m.b, outcome, order, n, count, share(count), Number.isFinite(i.lower) ? i.lower : null, Number.isFinite(i.upper) ? i.upper : null]);
  });
  const y = categoryEncoding('matchup', 'first vs second');
  return {
    name: 'outcomes',
    columns: ['matchup', 'first', 'second', 'outcome', 'order', 'episodes', 'count', 'share', 'lower', 'upper'],
    rows,
    view: {
      title: { text: 'Outcomes per matchup', subtitle: ['whiskers: 95% Wilson intervals of the first team\'s wins (solid)', 'and of the second team\'s (dotted, from 100%); dashed: 50%'] },
      width: 460,
      height: { step: 30 },
      layer: [
        {
          mark: 'bar',
          encoding: {
            y,
            x: shareEncoding('share', 'share of episodes', { stack: 'zero' }),
            color: categoryColours('outcome', 'outcome', OUTCOMES, ['#4c78a8', '#bab0ac', '#e45756']),
            order: { field: 'order', type: 'quantitative' },
            tooltip: [{ field: 'matchup' }, { field: 'outcome' }, { field: 'count', type: 'quantitative' }, { field: 'share', type: 'quantitative', format: '.1%' }],
          },
        },
        // The first team's interval a little above the middle of its row; the second
        // team's bar ends at 1, so its interval is drawn from there, a little below.
        intervalLayer({ y }, 'lower', 'upper', [{ filter: `datum.outcome == '${OUTCOMES[0]}'` }], { yOffset: -4 }),
        intervalLayer({ y }, 'whisker_from', 'whisker_to', [
          { filter: `datum.outcome == '${OUTCOMES[2]}' && isValid(datum.lower)` },
          { calculate: '1 - datum.upper', as: 'whisker_from' },
          { calculate: '1 - datum.lower', as: 'whisker_to' },
        ], { yOffset: 4, strokeDash: [3, 2] }),
        referenceLayer(0.5),
      ],
    },
  };
}

/** Each team's rating (point) with its 95% interval (line). */
export function ratingsPlot(s: TournamentSummary): Plot | null {
  if (!s.ratings) return null;
  const finite = (v: number) => (Number.isFinite(v) ? v : null);
  const y = categoryEncoding('team', 'team');
  return {
    name: 'ratings',
    columns: ['team', 'rating', 'lower', 'upper', 'games', 'wins', 'losses', 'draws', 'score', 'prior_draws'],
    rows: s.ratings.map((r) => [r.team, finite(r.rating), finite(r.lower), finite(r.upper), r.games, r.wins, r.losses, r.draws, r.score, RATING_PRIOR_DRAWS]),
    view: {
      title: { text: 'Bradley-Terry ratings', subtitle: `Elo scale, mean 1500; 95% bootstrap intervals; prior: ${RATING_PRIOR_DRAWS} draw per pair` },
      width: 460,
      height: { step: 30 },
      layer: [
        { mark: { type: 'rule', strokeWidth: 2, color: '#4c78a8' }, encoding: { y, x: { field: 'lower', type: 'quantitative', title: 'rating (Elo scale)', scale: { zero: false } }, x2: { field: 'upper' } } },
        { mark: { type: 'point', filled: true, size: 60, color: '#111' }, encoding: { y, x: { field: 'rating', type: 'quantitative' }, tooltip: [{ field: 'team' }, { field: 'rating', format: '.0f' }, { field: 'lower', format: '.0f' }, { field: 'upper', format: '.0f' }] } },
        { mark: { type: 'text', dy: -11, fontSize: 10 }, encoding: { y, x: { field: 'rating', type: 'quantitative' }, text: { field: 'rating', type: 'quantitative', format: '.0f' } } },
      ],
    },
  };
}

/** One heatmap per entrant (own base on the left) on one shared colour scale. */
export function heatmapsPlot(b: BehaviourComparison): Plot {
  const rows = b.profiles.flatMap((p) => p.heatmap.map((v, i) => [p.team, (i % HEATMAP_COLS) + 1, Math.floor(i / HEATMAP_COLS) + 1, v]));
  return {
    name: 'heatmaps',
    columns: ['team', 'column', 'row', 'share'],
    rows,
    view: {
      title: { text: 'Where each entrant\'s living agents were', subtitle: 'share of agent time per 4 m cell, seen from the entrant\'s own base (left)' },
      facet: { field: 'team', type: 'nominal', sort: null, title: null },
      columns: 3,
      spec: {
        width: 200,
        height: 125,
        mark: 'rect',
        encoding: {
          x: { field: 'column', type: 'ordinal', title: 'column (own base = 1)', axis: { labelAngle: 0 } },
          y: { field: 'row', type: 'ordinal', title: 'row' },
          color: { field: 'share', type: 'quantitative', title: 'share of time', scale: { scheme: 'viridis' }, legend: { format: '.0%' } },
          tooltip: [{ field: 'team' }, { field: 'column' }, { field: 'row' }, { field: 'share', type: 'quantitative', format: '.1%' }],
        },
      },
    },
  };
}

const finiteOrNull = (v: number | null | undefined) => (v === null || v === undefined || Number.isNaN(v) ? null : v);

/** The report's tables as data: full-precision numbers, one column per figure. */
export function tableCsvs(s: TournamentSummary): Map<string, string> {
  const skillColumns = SKILL_IDS.map((k) => `share_${k}`);
  const matchups = toCsv(
    ['matchup', 'first', 'second', 'episodes', 'first_wins', 'second_wins', 'draws', 'first_win_rate', 'first_win_lower', 'first_win_upper', 'second_win_rate', 'second_win_lower', 'second_win_upper', 'draw_rate', 'draw_lower', 'draw_upper', 'p_two_proportion', 'p_decisive', 'mean_duration_s', 'tests_held_back'],
    s.matchups.map((m) => [`${m.a} vs ${m.b}`, m.a, m.b, m.episodes, m.aWins, m.bWins, m.draws, ...[m.aRate, m.bRate, m.drawRate].flatMap((i) => [i.estimate, i.lower, i.upper]), m.pTwoProportion, m.pDecisive, m.meanDurationSeconds, m.heldBack]),
  );
  const teams = toCsv(
    ['team', 'agent_episodes', 'kills', 'deaths', 'kd', 'shots_per_episode', 'accuracy', 'pickups_per_episode', ...skillColumns, 'transition_entropy_bits'],
    s.teams.map((t) => [t.team, t.agentEpisodes, t.kills, t.deaths, t.kd, t.shotsPerEpisode, t.accuracy, t.pickupsPerEpisode, ...SKILL_IDS.map((k) => t.skillShare[k] ?? null), t.transitionEntropyBits]),
  );
  const b = s.behaviour;
  const behaviour = toCsv(
    ['team', 'episodes', ...skillColumns, 'switches_per_minute', 'place_entropy_bits', 'first_contact_s'],
    b.profiles.map((p) => [p.team, p.episodes, ...SKILL_IDS.map((_, i) => p.skillShare?.[i] ?? null), p.switchesPerMinute, p.heatmapEntropyBits, p.firstContactSeconds] as CsvValue[]),
  );
  const divergence = toCsv(
    ['team_a', 'team_b', 'skill_js_bits', 'place_js_bits'],
    b.profiles.flatMap((p, i) => b.profiles.map((q, j) => [p.team, q.team, finiteOrNull(b.skillDivergence[i]![j]), b.placeDivergence[i]![j]!])),
  );
  return new Map([
    ['matchups.csv', matchups],
    ['teams.csv', teams],
    ['behaviour.csv', behaviour],
    ['divergence.csv', divergence],
  ]);
}

/** Numbers right-aligned under their header, the row's name on the left. */
const TABLE_STYLE = 'th,td{padding:4px 10px;border-bottom:1px solid #ddd;text-align:right} th:first-child,td:first-child{text-align:left} th{color:#345}';

const figure = (name: keyof typeof FILES & keyof typeof PLOT_NAMES) => plotFigureHtml(name, FILES[name]);
const csvLink = (name: keyof typeof FILES) => `<p class="note">Data: <a href="${name}.csv">${name}.csv</a></p>`;

export function reportHtml(s: TournamentSummary, title: string, settings: string): string {
  const body = `<p class="note">${escapeXml(settings)}</p>
<p>${s.episodes} episodes. ${escapeXml(INTERVALS_NOTE)} Every episode, one row each: <a href="episodes.csv">episodes.csv</a>.</p>
<h2>Matchups</h2>
${figure('outcomes')}
${htmlTable(MATCHUP_HEADER, matchupRows(s.matchups))}
${heldBackLines(s.matchups).length ? `<p class="note">Tests held back ("-" above):</p><ul class="note">${heldBackLines(s.matchups).map((l) => `<li>${escapeXml(l)}</li>`).join('')}</ul>` : ''}
${csvLink('matchups')}
<h2>Ratings</h2>
<p class="note">${escapeXml(ratingsExplanation(s))}</p>
${s.ratings ? `${figure('ratings')}\n${htmlTable(RATING_HEADER, ratingRows(s))}\n${csvLink('ratings')}` : ''}
<h2>Teams (per agent)</h2>
${htmlTable(TEAM_HEADER, teamRows(s.teams))}
${csvLink('teams')}
<h2>Behaviour</h2>
<p class="note">Skill use, skill switches per agent per minute, the entropy of where living agents were (8 x 5 cells, own base on the left) and the mean time to the first hit.</p>
${htmlTable(BEHAVIOUR_HEADER, behaviourRows(s.behaviour))}
${csvLink('behaviour')}
${figure('heatmaps')}
<p class="note">Jensen-Shannon divergence between entrants, bits: skill use / places.</p>
${htmlTable(['', ...s.behaviour.profiles.map((p) => p.team)], divergenceRows(s.behaviour))}
${csvLink('divergence')}
<p>${escapeXml(coverageLine(s.behaviour))}</p>`;
  return htmlPage({ title, style: TABLE_STYLE, body });
}

/**
 * Every file of a tournament's report, name to text, for the caller to write into the
 * tournament's folder: report.md, report.html, each plot's .svg/.csv/.vl.json, each table's
 * .csv, and episodes.csv.
 */
export async function tournamentReportFiles(records: readonly EpisodeRecord[], s: TournamentSummary, title: string, settings: string): Promise<Map<string, string>> {
  const plots = [outcomesPlot(s.matchups), ratingsPlot(s), heatmapsPlot(s.behaviour)].filter((p): p is Plot => p !== null);
  const files = new Map<string, string>();
  for (const plot of plots) for (const [name, text] of await plotFiles(plot)) files.set(name, text);
  for (const [name, text] of tableCsvs(s)) files.set(name, text);
  files.set('episodes.csv', episodesCsv(records));
  files.set('report.md', reportMarkdown(s, title, settings));
  files.set('report.html', reportHtml(s, title, settings));
  return files;
}
