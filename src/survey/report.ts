/**
 * A study's analysis as report.md and report.html, and beside them every plot as SVG with
 * its Vega-Lite spec and its data as CSV (forced-choice counts, Likert means per team, AI
 * win rates with Wilson intervals, ratings by block position, observer humanness), and
 * every table as CSV. Participants' free text is escaped everywhere it appears.
 */
import { type CsvValue, toCsv } from '../report/csv';
import { escapeXml as escapeHtml, htmlTable, interval, markdownTable as table, mdText, num, pct, pValue } from '../report/format';
import { htmlPage } from '../report/page';
import { type Plot, categoryEncoding, intervalLayer, plotFigureHtml, plotFiles, referenceLayer, shareEncoding } from '../report/plot';
import { countOf } from '../sim';
import { BOTPRIZE_2012, type StudyAnalysis } from './analysis';

/** Study p-values carry four decimals (the tests' exact values are often near 0.05). */
const P_DIGITS = 4;

interface Section {
  readonly title: string;
  readonly md: string;
  readonly html: string;
  /** Plots shown first in the section, each written beside the report with its data. */
  readonly plots?: readonly Plot[];
  /** The section's tables as data, file name to CSV. */
  readonly data?: ReadonlyMap<string, string>;
}

const rateColumns = (r: { estimate: number; lower: number; upper: number } | null): (number | null)[] => (r ? [r.estimate, r.lower, r.upper] : [null, null, null]);

/** A share with its 95% Wilson interval per category: bars, whiskers, and optional reference lines. */
function ratePlot(name: string, title: string, category: string, axisTitle: string, columns: string[], rows: CsvValue[][], references: readonly number[] = []): Plot {
  const y = categoryEncoding(category, category === 'team' ? 'team' : 'played by');
  return {
    name,
    columns,
    rows: rows as Plot['rows'],
    view: {
      title: { text: title, subtitle: `whiskers: 95% Wilson intervals${references.length ? '; dashed: BotPrize 2012 references' : ''}` },
      width: 420,
      height: { step: 28 },
      layer: [
        { mark: { type: 'bar', color: '#4c78a8' }, encoding: { y, x: shareEncoding('rate', axisTitle), tooltip: [{ field: category }, { field: 'rate', type: 'quantitative', format: '.1%' }] } },
        intervalLayer({ y }, 'lower', 'upper'),
        ...references.map(referenceLayer),
      ],
    },
  };
}

function forcedChoicePlot(a: StudyAnalysis): Plot {
  const fc = a.forcedChoice;
  return {
    name: 'forced-choice',
    columns: ['team', 'chosen', 'share'],
    rows: fc.counts.map((c) => [c.team, c.count, fc.n ? c.count / fc.n : null]),
    view: {
      title: { text: 'Forced choice: which team felt most like competent human players' },
      width: 420,
      height: { step: 28 },
      mark: { type: 'bar', color: '#4c78a8' },
      encoding: { y: categoryEncoding('team', 'team'), x: { field: 'chosen', type: 'quantitative', title: 'participants who chose it', axis: { tickMinStep: 1 } } },
    },
  };
}

/** Mean rating per item and team, on the item's own scale. */
function likertPlot(a: StudyAnalysis): Plot {
  const points = Math.max(2, ...a.likert.map((i) => i.points));
  return {
    name: 'likert',
    columns: ['item', 'team', 'n', 'mean', 'median', 'sd', 'points'],
    rows: a.likert.flatMap((item) => item.perTeam.map((t) => [item.item, t.team, t.n, t.mean, t.median, t.sd, item.points])),
    view: {
      title: { text: 'Mean rating per team', subtitle: `scale 1 to ${points}` },
      width: { step: 22 },
      height: 220,
      mark: 'bar',
      encoding: {
        x: { field: 'item', type: 'nominal', sort: null, title: 'item', axis: { labelAngle: 0 } },
        xOffset: { field: 'team', sort: null },
        // Bars rise from the scale's floor, 1, not from 0 (which is no answer).
        y: { field: 'mean', type: 'quantitative', title: 'mean rating', scale: { domain: [1, points] } },
        y2: { datum: 1 },
        color: { field: 'team', type: 'nominal', sort: null, title: 'team' },
        tooltip: [{ field: 'item' }, { field: 'team' }, { field: 'mean', type: 'quantitative', format: '.2f' }, { field: 'median' }, { field: 'n' }],
      },
    },
  };
}

/** Mean rating by block position, one line per item. */
function orderPlot(a: StudyAnalysis): Plot {
  const points = Math.max(2, ...a.likert.map((i) => i.points));
  return {
    name: 'order',
    columns: ['item', 'block', 'n', 'mean'],
    rows: a.order.flatMap((o) => o.positions.map((p) => [o.item, p.position + 1, p.n, p.mean])),
    view: {
      title: { text: 'Mean rating by block position', subtitle: 'an order effect shows as lines that rise or fall together' },
      width: 360,
      height: 200,
      transform: [{ filter: 'isValid(datum.mean)' }],
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'block', type: 'ordinal', title: 'block position', axis: { labelAngle: 0 } },
        y: { field: 'mean', type: 'quantitative', title: 'mean rating', scale: { domain: [1, points] } },
        color: { field: 'item', type: 'nominal', sort: null, title: 'item' },
      },
    },
  };
}

function sections(a: StudyAnalysis): Section[] {
  const out: Section[] = [];
  const fc = a.forcedChoice;
  if (a.study.kind === 'play') {
    const rows = fc.counts.map((c) => [c.team, String(c.count), fc.n ? pct(c.count / fc.n) : '-']);
    const tests = [
      fc.chiSquare ? `Chi-square against uniform: χ² = ${num(fc.chiSquare.statistic, 3)}, df = ${fc.chiSquare.df}, p = ${pValue(fc.chiSquare.p, P_DIGITS)}; Cramér's V = ${num(fc.chiSquare.cramersV, 3)}` : null,
      fc.exactP !== null ? `exact multinomial p = ${pValue(fc.exactP, P_DIGITS)}` : null,
      fc.withheld,
    ]
      .filter((t) => t !== null)
      .join('; ');
    const stats = fc.n ? `n = ${fc.n}. ${tests[0]!.toUpperCase()}${tests.slice(1)}.` : 'No forced choices yet.';
    const reasons = fc.reasons.map((r) => `- P${r.participant} chose ${mdText(r.team)} (${mdText(r.label)}): ${mdText(r.reason)}`);
    out.push({
      title: 'Forced choice: which team felt most like competent human players',
      md: [table(['team', 'chosen', 'share'], rows), '', stats, '', ...(reasons.length ? ['Reasons:', '', ...reasons] : [])].join('\n'),
      plots: fc.n ? [forcedChoicePlot(a)] : [],
      data: new Map([['reasons.csv', toCsv(['participant', 'team', 'label', 'reason'], fc.reasons.map((r) => [r.participant, r.team, r.label, r.reason]), new Set(['team', 'label', 'reason']))]]),
      html: `${htmlTable(['team', 'chosen', 'share'], rows)}<p>${escapeHtml(stats)}</p>${fc.reasons.length ? `<h3>Reasons</h3><ul class="free">${fc.reasons.map((r) => `<li><b>P${r.participant} · ${escapeHtml(r.team)} (${escapeHtml(r.label)})</b>: ${escapeHtml(r.reason)}</li>`).join('')}</ul>` : ''}`,
    });

    const likertRows = a.likert.flatMap((item) => item.perTeam.map((t) => [item.item, t.team, String(t.n), num(t.mean), num(t.median, 1), num(t.sd)]));
    const friedmanGiven = a.likert.filter((item) => item.friedman !== null);
    const friedmanRows = friedmanGiven.map((item) => [item.item, String(item.friedman!.n), num(item.friedman!.statistic, 3), String(item.friedman!.df), pValue(item.friedman!.p, P_DIGITS), num(item.friedman!.kendallW, 3)]);
    const friedmanHeld = a.likert.filter((item) => item.friedmanWithheld !== null).map((item) => `${item.item}: ${item.friedmanWithheld}`);
    const pairs = a.likert.flatMap((item) => item.pairwise.map((p) => ({ item: item.item, ...p })));
    const pairRows = pairs.filter((p) => p.withheld === null).map((p) => [p.item, `${p.a} vs ${p.b}`, String(p.n), num(p.statistic, 1), pValue(p.p, P_DIGITS), pValue(p.pHolm, P_DIGITS), num(p.rankBiserial, 2)]);
    const pairsHeld = pairs.filter((p) => p.withheld !== null).map((p) => `${p.item}, ${p.a} vs ${p.b}: ${p.withheld}`);
    const friedmanHeader = ['item', 'n', 'χ²', 'df', 'p', "Kendall's W"];
    const pairHeader = ['item', 'pair', 'n', 'V', 'p', 'p (Holm)', 'r'];
    // A test the data cannot support is not printed as a row of numbers: it is named with why.
    const givenMd = (header: string[], rows: string[][], held: string[]) =>
      [...(rows.length ? [table(header, rows)] : []), ...(held.length ? [`${rows.length ? '\n' : ''}Held back:\n`, ...held.map((h) => `- ${mdText(h)}`)] : [])].join('\n');
    const givenHtml = (header: string[], rows: string[][], held: string[]) =>
      `${rows.length ? htmlTable(header, rows) : ''}${held.length ? `<p>Held back:</p><ul class="held">${held.map((h) => `<li>${escapeHtml(h)}</li>`).join('')}</ul>` : ''}`;
    const likertMd = [
      table(['item', 'team', 'n', 'mean', 'median', 'SD'], likertRows),
      '',
      'Friedman test over teams (participants who rated every team):',
      '',
      givenMd(friedmanHeader, friedmanRows, friedmanHeld),
      '',
      "Pairwise Wilcoxon signed-rank tests (n = participants who rated the two teams differently; V = sum of positive ranks of first minus second; p Holm-corrected within each item; r = matched-pairs rank-biserial):",
      '',
      givenMd(pairHeader, pairRows, pairsHeld),
    ].join('\n');
    out.push({
      title: 'Likert ratings per team',
      md: likertMd,
      plots: [likertPlot(a)],
      data: new Map([
        ['friedman.csv', toCsv(['item', 'n', 'statistic', 'df', 'p', 'kendall_w', 'held_back'], a.likert.map((item) => [item.item, item.friedman?.n, item.friedman?.statistic, item.friedman?.df, item.friedman?.p, item.friedman?.kendallW, item.friedmanWithheld]))],
        ['pairwise.csv', toCsv(['item', 'a', 'b', 'n', 'v', 'p', 'p_holm', 'rank_biserial', 'held_back'], pairs.map((p) => [p.item, p.a, p.b, p.n, p.statistic, p.p, p.pHolm, p.rankBiserial, p.withheld]))],
      ]),
      html: `${htmlTable(['item', 'team', 'n', 'mean', 'median', 'SD'], likertRows)}<h3>Friedman test over teams</h3>${givenHtml(friedmanHeader, friedmanRows, friedmanHeld)}<h3>Pairwise Wilcoxon signed-rank (Holm)</h3>${givenHtml(pairHeader, pairRows, pairsHeld)}`,
    });

    const winRows = a.winRates.map((w) => [w.team, String(w.episodes), String(w.aiWins), String(w.draws), String(w.participantWins), interval(w.rate)]);
    out.push({
      title: 'AI win rate against the participants',
      md: `${table(['team', 'episodes', 'AI wins', 'draws', 'participant wins', 'AI win rate (95% Wilson)'], winRows)}\n\n${a.episodes.played} verified episodes in blocks, ${a.episodes.practice} practice episodes, ${a.episodes.unverified} replays that did not verify (${a.episodes.excluded} block episodes excluded).`,
      plots: [
        ratePlot(
          'win-rates',
          'AI win rate against the participants',
          'team',
          'share of episodes the AI won',
          ['team', 'episodes', 'ai_wins', 'draws', 'participant_wins', 'rate', 'lower', 'upper'],
          a.winRates.map((w) => [w.team, w.episodes, w.aiWins, w.draws, w.participantWins, ...rateColumns(w.rate)]),
        ),
      ],
      html: `${htmlTable(['team', 'episodes', 'AI wins', 'draws', 'participant wins', 'AI win rate (95% Wilson)'], winRows)}`,
    });

    const orderRows = a.order.map((o) => [o.item, ...o.positions.map((p) => `${num(p.mean)} (n ${p.n})`), o.friedman ? pValue(o.friedman.p, P_DIGITS) : `held back: ${o.friedmanWithheld}`]);
    const orderHeader = ['item', ...a.study.teams.map((_, i) => `block ${i + 1}`), 'Friedman p'];
    const orderWinRows = a.orderWinRates.map((w) => [`block ${w.position + 1}`, String(w.episodes), interval(w.rate)]);
    out.push({
      title: 'Order effects (by block position)',
      md: `${table(orderHeader, orderRows)}\n\nAI win rate by block position:\n\n${table(['position', 'episodes', 'AI win rate (95% Wilson)'], orderWinRows)}`,
      plots: [orderPlot(a)],
      data: new Map([['order-win-rates.csv', toCsv(['block', 'episodes', 'rate', 'lower', 'upper'], a.orderWinRates.map((w) => [w.position + 1, w.episodes, ...rateColumns(w.rate)]))]]),
      html: `${htmlTable(orderHeader, orderRows)}<h3>AI win rate by block position</h3>${htmlTable(['position', 'episodes', 'AI win rate (95% Wilson)'], orderWinRows)}`,
    });

    const openBlocks = a.open.filter((o) => o.answers.length > 0);
    out.push({
      title: 'Open answers',
      data: new Map([['open-answers.csv', toCsv(['team', 'item', 'answer'], a.open.flatMap((o) => o.answers.map((t) => [o.team, o.item, t])), new Set(['team', 'item', 'answer']))]]),
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
      plots: [
        ratePlot(
          'humanness',
          'Humanness: share judged human',
          'played_by',
          'share of judgements "human"',
          ['played_by', 'judgements', 'judged_human', 'rate', 'lower', 'upper'],
          a.observer.types.map((t) => [t.type === 'human' ? 'people' : t.type, t.judgements, t.judgedHuman, ...rateColumns(t.rate)]),
          [BOTPRIZE_2012.humans, BOTPRIZE_2012.bestBots[0]],
        ),
      ],
      html: `<p>${a.observer.judgements} judgements by ${a.observer.participants} observers.</p>${htmlTable(['played by', 'judgements', 'judged human', 'humanness (95% Wilson)'], rows)}<p>${escapeHtml(ref)}</p>`,
    });
  }

  const bgRows = a.background.flatMap((b) => b.counts.map((c) => [b.item, c.option, String(c.count)]));
  if (bgRows.length) {
    out.push({
      title: 'Background',
      md: table(['question', 'answer', 'count'], bgRows.map((r) => r.map(mdText))),
      html: htmlTable(['question', 'answer', 'count'], bgRows),
      data: new Map([['background.csv', toCsv(['question', 'answer', 'count'], a.background.flatMap((b) => b.counts.map((c) => [b.item, c.option, c.count])), new Set(['question', 'answer']))]]),
    });
  }
  return out;
}

const plotTitle = (p: Plot) => String((p.view.title as { text?: string } | undefined)?.text ?? p.name);

/** The data files of a section: its plots' CSVs and specs, then its tables'. */
function sectionFiles(s: Section): string[] {
  return [...(s.plots ?? []).flatMap((p) => [`${p.name}.csv`, `${p.name}.vl.json`]), ...(s.data?.keys() ?? [])];
}

/**
 * Every file of a study's report, name to text, for the caller to write into one folder:
 * report.md, report.html, each plot's .svg/.csv/.vl.json and each table's .csv.
 */
export async function studyReportFiles(a: StudyAnalysis): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const s of sections(a)) {
    for (const plot of s.plots ?? []) for (const [name, text] of await plotFiles(plot)) files.set(name, text);
    for (const [name, text] of s.data ?? []) files.set(name, text);
  }
  files.set('report.md', studyReportMarkdown(a));
  files.set('report.html', studyReportHtml(a));
  return files;
}

function intro(a: StudyAnalysis): string {
  return `Study ${a.study.id} (${a.study.kind}), created ${a.study.createdAt}. Teams: ${a.study.teams.join(', ')}; ${countOf(a.study.episodesPerBlock, 'episode')} per block. Participants: ${a.participants.started} started, ${a.participants.completed} completed.`;
}

export function studyReportMarkdown(a: StudyAnalysis): string {
  const parts = [`# ${mdText(a.study.title)}`, '', intro(a), ''];
  for (const n of a.notes) parts.push(`> ${n}`, '');
  for (const s of sections(a)) {
    parts.push(`## ${s.title}`, '', ...(s.plots ?? []).flatMap((p) => [`![${mdText(plotTitle(p))}](${p.name}.svg)`, '']), s.md, '');
    const files = sectionFiles(s);
    if (files.length) parts.push(`Data: ${files.map((f) => `[${f}](${f})`).join(', ')}.`, '');
  }
  return `${parts.join('\n')}\n`;
}

export function studyReportHtml(a: StudyAnalysis): string {
  const body = sections(a)
    .map((s) => {
      const files = sectionFiles(s);
      const links = files.length ? `<p class="note">Data: ${files.map((f) => `<a href="${escapeHtml(f)}">${escapeHtml(f)}</a>`).join(', ')}</p>` : '';
      return `<section><h2>${escapeHtml(s.title)}</h2>${(s.plots ?? []).map((p) => plotFigureHtml(p.name, plotTitle(p))).join('')}${s.html}${links}</section>`;
    })
    .join('\n');
  return htmlPage({
    title: `${a.study.title} · study report`,
    heading: a.study.title,
    style: STUDY_STYLE,
    body: `<p>${escapeHtml(intro(a))}</p>\n${a.notes.map((n) => `<p class="note">${escapeHtml(n)}</p>`).join('\n')}\n${body}`,
  });
}

/** Text tables with ruled cells, notes that warn, free answers as they were typed. */
const STUDY_STYLE = 'td,th{border:1px solid #ddd;padding:4px 8px;text-align:left} th{background:#f3f5f8} section{margin-bottom:28px} .note{color:#8a5a00} ul.free li{white-space:pre-wrap;margin-bottom:4px}';
