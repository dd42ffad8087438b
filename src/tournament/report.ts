/**
 * A tournament summary as text for the terminal, report.md, and report.html with plots
 * (stacked win/draw/loss bars with Wilson intervals, ratings with bootstrap intervals).
 */
import { HEATMAP_COLS, HEATMAP_ROWS } from '../match';
import { SKILL_IDS } from '../skills';
import type { BehaviourComparison } from './behaviour';
import type { MatchupSummary, TeamSummary, TournamentSummary } from './summary';

const pct = (v: number) => (Number.isFinite(v) ? `${(100 * v).toFixed(1)}%` : '-');
const ci = (i: { estimate: number; lower: number; upper: number }) =>
  Number.isFinite(i.estimate) ? `${pct(i.estimate)} [${pct(i.lower)}, ${pct(i.upper)}]` : '-';
const pValue = (p: number | null) => (p === null ? '-' : p < 0.001 ? '<0.001' : p.toFixed(3));
const num = (v: number, digits = 2) => (Number.isFinite(v) ? v.toFixed(digits) : v === Infinity ? 'inf' : v === -Infinity ? '-inf' : '-');

function table(header: string[], rows: string[][]): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

function matchupRows(ms: readonly MatchupSummary[]): string[][] {
  return ms.map((m) => [`${m.a} vs ${m.b}`, String(m.episodes), ci(m.aRate), ci(m.bRate), ci(m.drawRate), pValue(m.pTwoProportion), pValue(m.pDecisive), num(m.meanDurationSeconds, 1)]);
}

function teamRows(ts: readonly TeamSummary[]): string[][] {
  return ts.map((t) => [
    t.team,
    String(t.agentEpisodes),
    num(t.kd, 3),
    num(t.shotsPerEpisode, 1),
    t.accuracy === null ? '-' : pct(t.accuracy),
    num(t.pickupsPerEpisode, 2),
    ...SKILL_IDS.map((s) => (t.skillShare[s] === undefined ? '-' : pct(t.skillShare[s]!))),
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
  return `Coverage: ${b.clusters.length} distinct behaviour${b.clusters.length === 1 ? '' : 's'} among ${b.profiles.length} entrants (two entrants count as one when the mean of their skill and place divergences is under ${b.threshold} bits): ${b.clusters.map((c) => `{${c.join(', ')}}`).join(' ')}.`;
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

/** One small heatmap per entrant (own base on the left), darker where its agents spent more time. */
function heatmapPlots(b: BehaviourComparison): string {
  const cell = 18;
  return b.profiles
    .map((p) => {
      const max = Math.max(1e-9, ...p.heatmap);
      const cells = p.heatmap
        .map((v, i) => `<rect x="${(i % HEATMAP_COLS) * cell}" y="${Math.floor(i / HEATMAP_COLS) * cell + 16}" width="${cell - 1}" height="${cell - 1}" fill="#4fa3ff" fill-opacity="${(0.08 + 0.92 * (v / max)).toFixed(3)}"><title>${pct(v)}</title></rect>`)
        .join('');
      return `<svg xmlns="http://www.w3.org/2000/svg" width="${HEATMAP_COLS * cell + 8}" height="${HEATMAP_ROWS * cell + 20}" font-family="sans-serif" font-size="11" fill="#ddd"><text x="0" y="11">${escape(p.team)}</text>${cells}</svg>`;
    })
    .join('\n');
}

const MATCHUP_HEADER = ['matchup', 'episodes', 'first wins (95% CI)', 'second wins (95% CI)', 'draws (95% CI)', 'p (two-proportion)', 'p (decisive vs 50%)', 'mean s'];
const TEAM_HEADER = ['team', 'agent-episodes', 'K/D', 'shots/ep', 'accuracy', 'pickups/ep', ...SKILL_IDS, 'transition entropy (bits)'];

export function reportMarkdown(s: TournamentSummary, title: string, settings: string): string {
  const parts = [
    `# ${title}`,
    '',
    settings,
    '',
    `${s.episodes} episodes. Intervals are 95% Wilson score intervals. "p (decisive vs 50%)" tests the first team's share of decisive games against 50% (the study's test); "p (two-proportion)" compares the two teams' win rates.`,
    '',
    '## Matchups',
    '',
    table(MATCHUP_HEADER, matchupRows(s.matchups)),
    '',
    '## Teams (per agent)',
    '',
    table(TEAM_HEADER, teamRows(s.teams)),
    '',
    '## Ratings (Bradley-Terry, Elo scale, draws as half wins)',
    '',
  ];
  if (s.ratings) {
    parts.push(table(['team', 'rating', '95% interval', 'games', 'W-L-D'], s.ratings.map((r) => [r.team, num(r.rating, 0), `[${num(r.lower, 0)}, ${num(r.upper, 0)}]`, String(r.games), `${r.wins}-${r.losses}-${r.draws}`])));
  } else {
    parts.push(`No ratings: ${s.ratingsNote}`);
  }
  parts.push('', ...behaviourMarkdown(s.behaviour));
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
  lines.push('', `${'team'.padEnd(w)}K/D     shots/ep  accuracy  pickups/ep  transition entropy`);
  for (const t of s.teams) {
    lines.push(`${t.team.padEnd(w)}${num(t.kd, 3).padEnd(8)}${num(t.shotsPerEpisode, 1).padEnd(10)}${(t.accuracy === null ? '-' : pct(t.accuracy)).padEnd(10)}${num(t.pickupsPerEpisode, 2).padEnd(12)}${t.transitionEntropyBits === null ? '-' : `${num(t.transitionEntropyBits)} bits`}`);
  }
  if (s.ratings) {
    lines.push('', 'rating (Bradley-Terry, 95% bootstrap interval)');
    for (const r of s.ratings) lines.push(`${r.team.padEnd(w)}${num(r.rating, 0).padStart(6)}  [${num(r.lower, 0)}, ${num(r.upper, 0)}]`);
  }
  lines.push('', coverageLine(s.behaviour));
  return lines.join('\n');
}

const escape = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Stacked bars (first wins, draws, second wins) per matchup, with Wilson whiskers on wins. */
function matchupPlot(ms: readonly MatchupSummary[]): string {
  const rowH = 34;
  const W = 720;
  const left = 220;
  const barW = W - left - 20;
  const H = 40 + ms.length * rowH;
  const x = (f: number) => left + f * barW;
  const rows = ms
    .map((m, i) => {
      const y = 30 + i * rowH;
      const n = Math.max(1, m.episodes);
      const a = m.aWins / n;
      const d = m.draws / n;
      return `<text x="${left - 8}" y="${y + 15}" text-anchor="end">${escape(`${m.a} vs ${m.b}`)}</text>
<rect x="${x(0)}" y="${y}" width="${a * barW}" height="20" fill="#4fa3ff"><title>${escape(m.a)} wins ${ci(m.aRate)}</title></rect>
<rect x="${x(a)}" y="${y}" width="${d * barW}" height="20" fill="#777"><title>draws ${ci(m.drawRate)}</title></rect>
<rect x="${x(a + d)}" y="${y}" width="${(1 - a - d) * barW}" height="20" fill="#ff6b5a"><title>${escape(m.b)} wins ${ci(m.bRate)}</title></rect>
<line x1="${x(m.aRate.lower)}" x2="${x(m.aRate.upper)}" y1="${y + 10}" y2="${y + 10}" stroke="#fff" stroke-width="2"/>`;
    })
    .join('\n');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12" fill="#ddd">
<text x="${left}" y="18">first team wins (blue, with 95% interval) · draws (grey) · second team wins (red)</text>
${rows}
<line x1="${x(0.5)}" x2="${x(0.5)}" y1="26" y2="${H - 6}" stroke="#aaa" stroke-dasharray="4 3"/>
</svg>`;
}

function ratingPlot(s: TournamentSummary): string {
  if (!s.ratings) return `<p>No ratings: ${escape(s.ratingsNote ?? '')}</p>`;
  const finite = s.ratings.flatMap((r) => [r.lower, r.upper, r.rating]).filter(Number.isFinite);
  const lo = Math.min(...finite) - 50;
  const hi = Math.max(...finite) + 50;
  const W = 720;
  const left = 160;
  const H = 30 + s.ratings.length * 28;
  const x = (v: number) => left + ((Math.max(lo, Math.min(hi, v)) - lo) / (hi - lo)) * (W - left - 30);
  const rows = s.ratings
    .map((r, i) => {
      const y = 20 + i * 28;
      return `<text x="${left - 8}" y="${y + 4}" text-anchor="end">${escape(r.team)}</text>
<line x1="${x(r.lower)}" x2="${x(r.upper)}" y1="${y}" y2="${y}" stroke="#4fa3ff" stroke-width="3"/>
<circle cx="${x(r.rating)}" cy="${y}" r="5" fill="#fff"><title>${num(r.rating, 0)} [${num(r.lower, 0)}, ${num(r.upper, 0)}]</title></circle>
<text x="${x(r.rating)}" y="${y - 8}" text-anchor="middle">${num(r.rating, 0)}</text>`;
    })
    .join('\n');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12" fill="#ddd">${rows}</svg>`;
}

function htmlTable(header: string[], rows: string[][]): string {
  return `<table><thead><tr>${header.map((h) => `<th>${escape(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${escape(c)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

export function reportHtml(s: TournamentSummary, title: string, settings: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<style>
body{background:#15171c;color:#ddd;font:14px/1.5 system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}
h1,h2{font-weight:600} table{border-collapse:collapse;margin:1em 0} th,td{padding:4px 10px;border-bottom:1px solid #333;text-align:right}
th:first-child,td:first-child{text-align:left} th{color:#9ab} .note{color:#999}
</style></head><body>
<h1>${escape(title)}</h1>
<p class="note">${escape(settings)}</p>
<p>${s.episodes} episodes. Intervals are 95% Wilson score intervals. "p (decisive vs 50%)" tests the first team's share of decisive games against 50% (the study's test); "p (two-proportion)" compares the two teams' win rates.</p>
<h2>Matchups</h2>
${matchupPlot(s.matchups)}
${htmlTable(MATCHUP_HEADER, matchupRows(s.matchups))}
<h2>Ratings</h2>
<p class="note">Bradley-Terry on an Elo scale, draws as half wins, 95% bootstrap intervals.</p>
${ratingPlot(s)}
<h2>Teams (per agent)</h2>
${htmlTable(TEAM_HEADER, teamRows(s.teams))}
<h2>Behaviour</h2>
<p class="note">Skill use, skill switches per agent per minute, the entropy of where living agents were (8 x 5 cells, own base on the left) and the mean time to the first hit.</p>
${htmlTable(BEHAVIOUR_HEADER, behaviourRows(s.behaviour))}
<div class="heatmaps">${heatmapPlots(s.behaviour)}</div>
<p class="note">Jensen-Shannon divergence between entrants, bits: skill use / places.</p>
${htmlTable(['', ...s.behaviour.profiles.map((p) => p.team)], divergenceRows(s.behaviour))}
<p>${escape(coverageLine(s.behaviour))}</p>
</body></html>
`;
}
