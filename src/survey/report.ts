/**
 * A study's analysis as report.md and report.html (with SVG plots: forced-choice counts,
 * Likert means per team, AI win rates with Wilson intervals, ratings by block position,
 * observer humanness). Participants' free text is escaped everywhere it appears.
 */
import { BOTPRIZE_2012, type StudyAnalysis } from './analysis';

const pct = (v: number) => `${(100 * v).toFixed(1)}%`;
const num = (v: number | null, digits = 2) => (v === null || !Number.isFinite(v) ? '-' : v.toFixed(digits));
const pValue = (p: number | null) => (p === null ? '-' : p < 0.001 ? '<0.001' : p.toFixed(4));
const interval = (i: { estimate: number; lower: number; upper: number } | null) => (i ? `${pct(i.estimate)} [${pct(i.lower)}, ${pct(i.upper)}]` : '-');

/** Escape text for HTML (and for Markdown, whose viewers render inline HTML). */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Free text on one Markdown line: HTML escaped, table pipes and line breaks neutralised. */
function mdText(text: string): string {
  return escapeHtml(text).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ').replace(/[`*_[\]#]/g, (c) => `\\${c}`);
}

function table(header: string[], rows: string[][]): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

interface Section {
  readonly title: string;
  readonly md: string;
  readonly html: string;
}

function htmlTable(header: string[], rows: string[][]): string {
  const head = header.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`).join('\n');
  return `<table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

const PALETTE = ['#e0a526', '#9b6bdf', '#2bb3a3', '#d9679b', '#7f9c3a', '#5f86c9'];

/** Horizontal bars with optional whiskers; values in [0, max]. */
function barPlot(title: string, rows: { label: string; value: number; lower?: number; upper?: number; text: string }[], max: number, reference: { value: number; label: string }[] = []): string {
  const W = 720;
  const left = 170;
  const rowH = 28;
  const barW = W - left - 120;
  const H = 34 + rows.length * rowH + (reference.length ? 18 : 0);
  const x = (v: number) => left + (Math.max(0, Math.min(max, v)) / max) * barW;
  const bars = rows
    .map((r, i) => {
      const y = 28 + i * rowH;
      const whisker =
        r.lower !== undefined && r.upper !== undefined
          ? `<line x1="${x(r.lower)}" x2="${x(r.upper)}" y1="${y + 9}" y2="${y + 9}" stroke="#fff" stroke-width="2"/>`
          : '';
      return `<text x="${left - 8}" y="${y + 13}" text-anchor="end">${escapeHtml(r.label)}</text>
<rect x="${left}" y="${y}" width="${Math.max(0, x(r.value) - left)}" height="18" fill="${PALETTE[i % PALETTE.length]}"><title>${escapeHtml(r.text)}</title></rect>${whisker}
<text x="${x(Math.max(r.value, r.upper ?? 0)) + 6}" y="${y + 13}">${escapeHtml(r.text)}</text>`;
    })
    .join('\n');
  const refs = reference
    .map(
      (ref, i) =>
        `<line x1="${x(ref.value)}" x2="${x(ref.value)}" y1="24" y2="${H - 16}" stroke="#aaa" stroke-dasharray="4 3"/><text x="${x(ref.value)}" y="${H - 4}" text-anchor="${i % 2 ? 'start' : 'end'}" fill="#aaa">${escapeHtml(ref.label)}</text>`,
    )
    .join('\n');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12" fill="#ddd" role="img" aria-label="${escapeHtml(title)}">
<text x="${left}" y="16">${escapeHtml(title)}</text>
${bars}
${refs}
</svg>`;
}

/** Grouped bars: one group per Likert item, one bar per team (means on 1..points). */
function likertPlot(a: StudyAnalysis): string {
  const teams = a.study.teams;
  const items = a.likert;
  if (items.length === 0) return '';
  const points = Math.max(...items.map((i) => i.points));
  const W = 760;
  const H = 240;
  const left = 40;
  const bottom = H - 40;
  const groupW = (W - left - 20) / items.length;
  const barW = Math.min(26, (groupW - 16) / teams.length);
  const y = (v: number) => bottom - ((v - 1) / (points - 1)) * (bottom - 24);
  const grid = Array.from({ length: points }, (_, i) => i + 1)
    .map((v) => `<line x1="${left}" x2="${W - 10}" y1="${y(v)}" y2="${y(v)}" stroke="#333"/><text x="${left - 6}" y="${y(v) + 4}" text-anchor="end">${v}</text>`)
    .join('\n');
  const bars = items
    .map((item, g) => {
      const x0 = left + g * groupW + 8;
      const group = item.perTeam
        .map((t, i) =>
          t.mean === null
            ? ''
            : `<rect x="${x0 + i * barW}" y="${y(t.mean)}" width="${barW - 3}" height="${bottom - y(t.mean)}" fill="${PALETTE[i % PALETTE.length]}"><title>${escapeHtml(`${t.team}: mean ${num(t.mean)}, median ${num(t.median, 1)}, n ${t.n}`)}</title></rect>`,
        )
        .join('');
      return `${group}<text x="${x0 + (teams.length * barW) / 2}" y="${bottom + 16}" text-anchor="middle">${escapeHtml(item.item)}</text>`;
    })
    .join('\n');
  const legend = teams.map((t, i) => `<rect x="${left + i * 120}" y="${H - 14}" width="10" height="10" fill="${PALETTE[i % PALETTE.length]}"/><text x="${left + 14 + i * 120}" y="${H - 5}">${escapeHtml(t)}</text>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12" fill="#ddd" role="img" aria-label="Likert means per team">
<text x="${left}" y="14">Mean rating per team (scale 1 to ${points})</text>
${grid}
${bars}
${legend}
</svg>`;
}

/** Lines of the mean rating by block position, one line per item. */
function orderPlot(a: StudyAnalysis): string {
  const k = a.study.teams.length;
  if (a.order.length === 0 || k < 2) return '';
  const points = Math.max(...a.likert.map((i) => i.points));
  const W = 560;
  const H = 220;
  const left = 40;
  const right = 150;
  const bottom = H - 30;
  const x = (p: number) => left + (p / (k - 1)) * (W - left - right);
  const y = (v: number) => bottom - ((v - 1) / (points - 1)) * (bottom - 20);
  const lines = a.order
    .map((o, i) => {
      const pts = o.positions.filter((p) => p.mean !== null).map((p) => `${x(p.position)},${y(p.mean!)}`);
      const colour = PALETTE[i % PALETTE.length];
      return `<polyline fill="none" stroke="${colour}" stroke-width="2" points="${pts.join(' ')}"/><text x="${W - right + 10}" y="${30 + i * 16}" fill="${colour}">${escapeHtml(o.item)}</text>`;
    })
    .join('\n');
  const axis = Array.from({ length: k }, (_, p) => `<text x="${x(p)}" y="${bottom + 16}" text-anchor="middle">block ${p + 1}</text>`).join('');
  const grid = Array.from({ length: points }, (_, i) => i + 1)
    .map((v) => `<line x1="${left}" x2="${W - right}" y1="${y(v)}" y2="${y(v)}" stroke="#333"/><text x="${left - 6}" y="${y(v) + 4}" text-anchor="end">${v}</text>`)
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12" fill="#ddd" role="img" aria-label="Ratings by block position">
<text x="${left}" y="12">Mean rating by block position</text>
${grid}${axis}
${lines}
</svg>`;
}

function sections(a: StudyAnalysis): Section[] {
  const out: Section[] = [];
  const fc = a.forcedChoice;
  if (a.study.kind === 'play') {
    const rows = fc.counts.map((c) => [c.team, String(c.count), fc.n ? pct(c.count / fc.n) : '-']);
    const tests = [
      fc.chiSquare ? `Chi-square against uniform: χ² = ${num(fc.chiSquare.statistic, 3)}, df = ${fc.chiSquare.df}, p = ${pValue(fc.chiSquare.p)}; Cramér's V = ${num(fc.chiSquare.cramersV, 3)}` : null,
      fc.exactP !== null ? `exact multinomial p = ${pValue(fc.exactP)}` : null,
      fc.withheld,
    ]
      .filter((t) => t !== null)
      .join('; ');
    const stats = fc.n ? `n = ${fc.n}. ${tests[0]!.toUpperCase()}${tests.slice(1)}.` : 'No forced choices yet.';
    const reasons = fc.reasons.map((r) => `- P${r.participant} chose ${mdText(r.team)} (${mdText(r.label)}): ${mdText(r.reason)}`);
    out.push({
      title: 'Forced choice: which team felt most like competent human players',
      md: [table(['team', 'chosen', 'share'], rows), '', stats, '', ...(reasons.length ? ['Reasons:', '', ...reasons] : [])].join('\n'),
      html: `${htmlTable(['team', 'chosen', 'share'], rows)}<p>${escapeHtml(stats)}</p>${
        fc.n ? barPlot('Forced choice counts', fc.counts.map((c) => ({ label: c.team, value: c.count, text: String(c.count) })), Math.max(1, ...fc.counts.map((c) => c.count))) : ''
      }${fc.reasons.length ? `<h3>Reasons</h3><ul class="free">${fc.reasons.map((r) => `<li><b>P${r.participant} · ${escapeHtml(r.team)} (${escapeHtml(r.label)})</b>: ${escapeHtml(r.reason)}</li>`).join('')}</ul>` : ''}`,
    });

    const likertRows = a.likert.flatMap((item) => item.perTeam.map((t) => [item.item, t.team, String(t.n), num(t.mean), num(t.median, 1), num(t.sd)]));
    const friedmanRows = a.likert.map((item) =>
      item.friedman
        ? [item.item, String(item.friedman.n), num(item.friedman.statistic, 3), String(item.friedman.df), pValue(item.friedman.p), num(item.friedman.kendallW, 3)]
        : [item.item, '-', '-', '-', '-', '-'],
    );
    const pairRows = a.likert.flatMap((item) => item.pairwise.map((p) => [item.item, `${p.a} vs ${p.b}`, String(p.n), num(p.statistic, 1), pValue(p.p), pValue(p.pHolm), num(p.rankBiserial, 2)]));
    const likertMd = [
      table(['item', 'team', 'n', 'mean', 'median', 'SD'], likertRows),
      '',
      'Friedman test over teams (participants who rated every team):',
      '',
      table(['item', 'n', 'χ²', 'df', 'p', "Kendall's W"], friedmanRows),
      '',
      "Pairwise Wilcoxon signed-rank tests (V = sum of positive ranks of first minus second; p Holm-corrected within each item; r = matched-pairs rank-biserial):",
      '',
      table(['item', 'pair', 'n', 'V', 'p', 'p (Holm)', 'r'], pairRows),
    ].join('\n');
    out.push({
      title: 'Likert ratings per team',
      md: likertMd,
      html: `${likertPlot(a)}${htmlTable(['item', 'team', 'n', 'mean', 'median', 'SD'], likertRows)}<h3>Friedman test over teams</h3>${htmlTable(['item', 'n', 'χ²', 'df', 'p', "Kendall's W"], friedmanRows)}<h3>Pairwise Wilcoxon signed-rank (Holm)</h3>${htmlTable(['item', 'pair', 'n', 'V', 'p', 'p (Holm)', 'r'], pairRows)}`,
    });

    const winRows = a.winRates.map((w) => [w.team, String(w.episodes), String(w.aiWins), String(w.draws), String(w.participantWins), interval(w.rate)]);
    out.push({
      title: 'AI win rate against the participants',
      md: `${table(['team', 'episodes', 'AI wins', 'draws', 'participant wins', 'AI win rate (95% Wilson)'], winRows)}\n\n${a.episodes.played} verified episodes in blocks, ${a.episodes.practice} practice episodes, ${a.episodes.unverified} replays that did not verify (${a.episodes.excluded} block episodes excluded).`,
      html: `${barPlot(
        'AI win rate (95% Wilson interval)',
        a.winRates.map((w) => ({ label: w.team, value: w.rate?.estimate ?? 0, lower: w.rate?.lower, upper: w.rate?.upper, text: interval(w.rate) })),
        1,
      )}${htmlTable(['team', 'episodes', 'AI wins', 'draws', 'participant wins', 'AI win rate (95% Wilson)'], winRows)}`,
    });

    const orderRows = a.order.map((o) => [o.item, ...o.positions.map((p) => `${num(p.mean)} (n ${p.n})`), o.friedman ? pValue(o.friedman.p) : '-']);
    const orderHeader = ['item', ...a.study.teams.map((_, i) => `block ${i + 1}`), 'Friedman p'];
    const orderWinRows = a.orderWinRates.map((w) => [`block ${w.position + 1}`, String(w.episodes), interval(w.rate)]);
    out.push({
      title: 'Order effects (by block position)',
      md: `${table(orderHeader, orderRows)}\n\nAI win rate by block position:\n\n${table(['position', 'episodes', 'AI win rate (95% Wilson)'], orderWinRows)}`,
      html: `${orderPlot(a)}${htmlTable(orderHeader, orderRows)}<h3>AI win rate by block position</h3>${htmlTable(['position', 'episodes', 'AI win rate (95% Wilson)'], orderWinRows)}`,
    });

    const openBlocks = a.open.filter((o) => o.answers.length > 0);
    out.push({
      title: 'Open answers',
      md: openBlocks.length ? openBlocks.map((o) => [`### ${mdText(o.team)} · ${mdText(o.item)}`, '', ...o.answers.map((t) => `- ${mdText(t)}`)].join('\n')).join('\n\n') : 'None yet.',
      html: openBlocks.length
        ? openBlocks.map((o) => `<h3>${escapeHtml(o.team)} · ${escapeHtml(o.item)}</h3><ul class="free">${o.answers.map((t) => `<li>${escapeHtml(t)}</li>`).join('')}</ul>`).join('')
        : '<p>None yet.</p>',
    });
  }

  if (a.observer) {
    const rows = a.observer.types.map((t) => [t.type === 'human' ? 'people' : t.type, String(t.judgements), String(t.judgedHuman), interval(t.rate)]);
    const ref = `BotPrize 2012 reference: the best bots were judged human ${pct(BOTPRIZE_2012.bestBots[0])} and ${pct(BOTPRIZE_2012.bestBots[1])} of the time, human players ${pct(BOTPRIZE_2012.humans)}.`;
    out.push({
      title: 'Observer judgements: humanness (share judged human)',
      md: `${a.observer.judgements} judgements by ${a.observer.participants} observers.\n\n${table(['played by', 'judgements', 'judged human', 'humanness (95% Wilson)'], rows)}\n\n${ref}`,
      html: `<p>${a.observer.judgements} judgements by ${a.observer.participants} observers.</p>${barPlot(
        'Humanness (share judged human, 95% Wilson)',
        a.observer.types.map((t) => ({ label: t.type === 'human' ? 'people' : t.type, value: t.rate?.estimate ?? 0, lower: t.rate?.lower, upper: t.rate?.upper, text: interval(t.rate) })),
        1,
        [
          { value: BOTPRIZE_2012.humans, label: 'BotPrize humans' },
          { value: BOTPRIZE_2012.bestBots[0], label: 'best bot' },
        ],
      )}${htmlTable(['played by', 'judgements', 'judged human', 'humanness (95% Wilson)'], rows)}<p>${escapeHtml(ref)}</p>`,
    });
  }

  const bgRows = a.background.flatMap((b) => b.counts.map((c) => [b.item, c.option, String(c.count)]));
  if (bgRows.length) out.push({ title: 'Background', md: table(['question', 'answer', 'count'], bgRows.map((r) => r.map(mdText))), html: htmlTable(['question', 'answer', 'count'], bgRows) });
  return out;
}

function intro(a: StudyAnalysis): string {
  return `Study ${a.study.id} (${a.study.kind}), created ${a.study.createdAt}. Teams: ${a.study.teams.join(', ')}; ${a.study.episodesPerBlock} episodes per block. Participants: ${a.participants.started} started, ${a.participants.completed} completed.`;
}

export function studyReportMarkdown(a: StudyAnalysis): string {
  const parts = [`# ${mdText(a.study.title)}`, '', intro(a), ''];
  for (const n of a.notes) parts.push(`> ${n}`, '');
  for (const s of sections(a)) parts.push(`## ${s.title}`, '', s.md, '');
  return `${parts.join('\n')}\n`;
}

export function studyReportHtml(a: StudyAnalysis): string {
  const body = sections(a)
    .map((s) => `<section><h2>${escapeHtml(s.title)}</h2>${s.html}</section>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(a.study.title)} · study report</title>
<style>
body{background:#0b0f17;color:#dbe4f0;font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:980px;padding:0 16px}
table{border-collapse:collapse;margin:8px 0 16px}td,th{border:1px solid #24304a;padding:4px 8px;text-align:left}th{background:#182033}
section{margin-bottom:28px}.note{color:#f5b942}ul.free li{white-space:pre-wrap;margin-bottom:4px}svg{display:block;margin:8px 0}
</style></head><body>
<h1>${escapeHtml(a.study.title)}</h1>
<p>${escapeHtml(intro(a))}</p>
${a.notes.map((n) => `<p class="note">${escapeHtml(n)}</p>`).join('\n')}
${body}
</body></html>
`;
}
