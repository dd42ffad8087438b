/**
 * Plots as Vega-Lite specifications, rendered to SVG in Node by Vega (no browser, no
 * canvas). Each plot is written as three files that stand alone:
 *   <name>.csv      the data behind it (see ./csv),
 *   <name>.vl.json  the Vega-Lite spec that reads that CSV, with the theme as its `config`,
 *   <name>.svg      the spec rendered.
 * (What writes them chooses how: a tournament replaces each whole, the reproduction
 * rewrites them as rows finish.) A researcher restyles a plot by editing the spec's `config`, marks or encodings and
 * rendering it again (the Vega editor, Altair's `alt.Chart.from_json`, `vl2svg`), with no
 * code of ours. Vega-Lite was chosen over hand-drawn SVG because it gives axes, legends
 * and colour scales by default, and over other libraries because its output is a plain
 * JSON document that the common notebook tools (Altair in Python, vegawidget in R, the
 * online editor) open and restyle.
 */
import * as vega from 'vega';
import { type TopLevelSpec, compile } from 'vega-lite';
import { type CsvValue, toCsv } from './csv';
import { escapeXml } from './format';

/** "light" (white, print-ready) is the default; "dark" suits a dark page. */
export type PlotTheme = 'light' | 'dark';

type Cell = string | number | null;

/** A plot: its data as one table, and a Vega-Lite view over that table (without `data`). */
export interface Plot {
  /** File stem of the three files; letters, digits, '-' and '_' only. */
  readonly name: string;
  /** Column names, usable as Vega-Lite field names (no dots or brackets). */
  readonly columns: readonly string[];
  readonly rows: readonly (readonly Cell[])[];
  /** A Vega-Lite unit, layer, facet or concat spec with everything but `data` and `config`. */
  readonly view: Record<string, unknown>;
}

const FONT = 'Helvetica, Arial, sans-serif';

/** A theme's Vega-Lite config from its colours: the page, text, axis lines, grid lines and the view's frame. */
function themeConfig(c: { background: string; text: string; strong: string; axis: string; grid: string; frame: string }): Record<string, unknown> {
  const labels = { labelFontSize: 11, titleFontSize: 12, labelColor: c.text, titleColor: c.text };
  return {
    background: c.background,
    font: FONT,
    view: { stroke: c.frame },
    axis: { ...labels, domainColor: c.axis, tickColor: c.axis, gridColor: c.grid },
    legend: labels,
    header: { ...labels, labelFontSize: 12 },
    title: { fontSize: 14, color: c.strong, subtitleColor: c.text, anchor: 'start' },
    text: { color: c.text },
  };
}

/** Theme configs: the part of a written spec a researcher edits first. */
export const PLOT_THEMES: Record<PlotTheme, Record<string, unknown>> = {
  light: themeConfig({ background: 'white', text: '#222', strong: '#111', axis: '#555', grid: '#e6e6e6', frame: '#bbb' }),
  dark: themeConfig({ background: '#15171c', text: '#ccc', strong: '#eee', axis: '#888', grid: '#2c3038', frame: '#444' }),
};

function checkPlot(plot: Plot): void {
  if (!/^[A-Za-z0-9_-]+$/.test(plot.name)) throw new Error(`plot name "${plot.name}" must be letters, digits, '-' or '_' (it names files)`);
  const bad = plot.columns.filter((c) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(c));
  if (bad.length) throw new Error(`plot ${plot.name}: column names ${bad.join(', ')} must be identifiers (letters, digits, '_'), as Vega-Lite field names`);
  plot.rows.forEach((r, n) => {
    if (r.length !== plot.columns.length) throw new Error(`plot ${plot.name}: row ${n + 1} has ${r.length} values; there are ${plot.columns.length} columns`);
  });
}

/** The columns every value of which is a number (or missing): read back from CSV as numbers. */
function numericColumns(plot: Plot): string[] {
  return plot.columns.filter((_, i) => plot.rows.some((r) => typeof r[i] === 'number') && plot.rows.every((r) => r[i] === null || typeof r[i] === 'number'));
}

/**
 * The plot's full Vega-Lite spec: reading its CSV beside it (`data: "file"`, the written
 * spec) or carrying its rows (`data: "inline"`, what is rendered here).
 */
export function plotSpec(plot: Plot, theme: PlotTheme = 'light', data: 'file' | 'inline' = 'file'): TopLevelSpec {
  checkPlot(plot);
  const numeric = numericColumns(plot);
  const source =
    data === 'file'
      ? { url: `${plot.name}.csv`, format: { type: 'csv', parse: Object.fromEntries(numeric.map((c) => [c, 'number'])) } }
      : { values: plot.rows.map((r) => Object.fromEntries(plot.columns.map((c, i) => [c, r[i] ?? null]))) };
  return { $schema: 'https://vega.github.io/schema/vega-lite/v6.json', ...plot.view, data: source, config: PLOT_THEMES[theme] } as unknown as TopLevelSpec;
}

/** Renders any Vega-Lite spec with inline data to SVG. */
export async function renderVegaLite(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** The plot as SVG. */
export function renderPlot(plot: Plot, theme: PlotTheme = 'light'): Promise<string> {
  return renderVegaLite(plotSpec(plot, theme, 'inline'));
}

/** The plot's data as CSV. */
export function plotCsv(plot: Plot): string {
  checkPlot(plot);
  return toCsv(plot.columns, plot.rows as readonly (readonly CsvValue[])[]);
}

/** The plot's three files, name to text: <name>.csv, <name>.vl.json and <name>.svg. */
export async function plotFiles(plot: Plot, theme: PlotTheme = 'light'): Promise<Map<string, string>> {
  return new Map([
    [`${plot.name}.csv`, plotCsv(plot)],
    [`${plot.name}.vl.json`, `${JSON.stringify(plotSpec(plot, theme, 'file'), null, 2)}\n`],
    [`${plot.name}.svg`, await renderPlot(plot, theme)],
  ]);
}

// Pieces of Vega-Lite views the reports share.

/** A category axis (one band per value, in the data's order) with labels long enough for variant team ids. */
export function categoryEncoding(field: string, title: string): Record<string, unknown> {
  return { field, type: 'nominal', sort: null, title, axis: { labelLimit: 320 } };
}

/** A share axis from 0% to 100%. */
export function shareEncoding(field: string, title: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { field, type: 'quantitative', title, scale: { domain: [0, 1] }, axis: { format: '%' }, ...extra };
}

/** Colours for fixed categories, in the given order. */
export function categoryColours(field: string, title: string, domain: readonly string[], range: readonly string[]): Record<string, unknown> {
  return { field, type: 'nominal', title, scale: { domain: [...domain], range: [...range] } };
}

/** An interval as a dark line from `from` to `to` along x (rows where `from` is missing are left out); `mark` adds mark properties. */
export function intervalLayer(encoding: Record<string, unknown>, from: string, to: string, transform: readonly Record<string, unknown>[] = [], mark: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    transform: [...transform, { filter: `isValid(datum.${from})` }],
    mark: { type: 'rule', color: '#111', strokeWidth: 1.5, ...mark },
    encoding: { ...encoding, x: { field: from, type: 'quantitative' }, x2: { field: to } },
  };
}

/** A dashed vertical reference line at x = `value`. */
export function referenceLayer(value: number): Record<string, unknown> {
  return { mark: { type: 'rule', strokeDash: [4, 3], color: '#555' }, encoding: { x: { datum: value } } };
}

/**
 * A plot on an HTML page: its SVG beside the page (not inline: Vega names its gradients
 * and clip paths alike in every SVG, and inline they would clash), a caption, and links
 * to its data and spec.
 */
export function plotFigureHtml(name: string, caption: string): string {
  const text = escapeXml(caption);
  return `<figure><img src="${name}.svg" alt="${text}"><figcaption>${text}: <a href="${name}.svg">SVG</a> · <a href="${name}.csv">data (CSV)</a> · <a href="${name}.vl.json">Vega-Lite spec</a></figcaption></figure>`;
}
