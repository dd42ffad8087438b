/**
 * The shared report helpers: one escaper for HTML, SVG and Markdown's inline HTML; CSV that
 * pandas and R read as written; plots whose written spec, read with its CSV, renders
 * exactly the SVG written beside it.
 */
import { readFileSync } from 'node:fs';
import * as vega from 'vega';
import { describe, expect, it } from 'vitest';
import { toCsv } from '../../src/report/csv';
import { escapeXml, htmlTable, interval, markdownTable, mdText, num, pValue, pct } from '../../src/report/format';
import { htmlPage } from '../../src/report/page';
import { type Plot, plotFiles, plotSpec, renderPlot, renderVegaLite } from '../../src/report/plot';

describe('formatting', () => {
  it('escapes the five XML specials, so attributes and content are both safe', () => {
    expect(escapeXml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
    expect(htmlTable(['"h"'], [['<b>']])).toBe('<table><thead><tr><th>&quot;h&quot;</th></tr></thead><tbody><tr><td>&lt;b&gt;</td></tr></tbody></table>');
    expect(mdText('a|b\n*c*')).toBe('a\\|b \\*c\\*');
    expect(markdownTable(['a', 'b'], [['1', '2']])).toBe('| a | b |\n|---|---|\n| 1 | 2 |');
  });

  it('prints missing figures as "-" and infinities by name', () => {
    expect([pct(0.5151), pct(NaN), pct(null)]).toEqual(['51.5%', '-', '-']);
    expect(interval({ estimate: 0.5, lower: 0.4, upper: 0.6 })).toBe('50.0% [40.0%, 60.0%]');
    expect(interval(null)).toBe('-');
    expect([pValue(0.0004), pValue(0.12345), pValue(0.12345, 4), pValue(null)]).toEqual(['<0.001', '0.123', '0.1235', '-']);
    expect([num(Infinity), num(-Infinity), num(NaN), num(1.005, 1)]).toEqual(['inf', '-inf', '-', '1.0']);
  });

  it('prints a share with the decimals asked for, one by default', () => {
    expect([pct(0.5151, 0), pct(0.5151, 2), pct(1)]).toEqual(['52%', '51.51%', '100.0%']);
    expect(num(null, 3)).toBe('-');
  });
});

describe('the HTML page', () => {
  it('is one standalone document: title and heading escaped, the shared style and then the report\'s own', () => {
    const page = htmlPage({ title: 'A & B · report', heading: '<A>', style: 'th{color:red}', body: '<p>x</p>' });
    expect(page.startsWith('<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>A &amp; B · report</title>')).toBe(true);
    expect(page).toContain('<h1>&lt;A&gt;</h1>\n<p>x</p>\n</body></html>\n');
    const style = /<style>([\s\S]*)<\/style>/.exec(page)![1]!;
    expect(style.indexOf('body{')).toBeLessThan(style.indexOf('th{color:red}'));
    expect(page).not.toMatch(/<script|<link/);
    expect(htmlPage({ title: 'T', body: '' })).toContain('<h1>T</h1>');
  });
});

describe('CSV', () => {
  it('writes full precision, NA as empty, infinities as Inf, and quotes only where needed', () => {
    const text = toCsv(['team', 'x', 'note'], [['a,b', 1 / 3, null], ['=cmd', Infinity, 'say "hi"'], ['c', NaN, ' pad']], new Set(['team']));
    expect(text).toBe('team,x,note\r\n"a,b",0.3333333333333333,\r\n\'=cmd,Inf,"say ""hi"""\r\nc,," pad"\r\n');
  });

  it('refuses a row that does not fit the header', () => {
    expect(() => toCsv(['a', 'b'], [[1]])).toThrow(/CSV row 1 has 1 fields; the header has 2 \(a, b\)/);
  });
});

const plot: Plot = {
  name: 'demo',
  columns: ['team', 'share', 'lower'],
  rows: [
    ['a & b', 0.25, 0.1],
    ['c', 0.75, null],
  ],
  view: { mark: 'bar', encoding: { y: { field: 'team', type: 'nominal', title: 'team' }, x: { field: 'share', type: 'quantitative', title: 'share of games' } } },
};

describe('plots', () => {
  it('writes a spec that reads its CSV, and that spec with that CSV renders the SVG written beside it', async () => {
    const files = await plotFiles(plot);
    expect([...files.keys()]).toEqual(['demo.csv', 'demo.vl.json', 'demo.svg']);
    const spec = JSON.parse(files.get('demo.vl.json')!);
    expect(spec.data).toEqual({ url: 'demo.csv', format: { type: 'csv', parse: { share: 'number', lower: 'number' } } });
    // What a researcher does: load the CSV the spec names and render.
    const values = vega.read(files.get('demo.csv')!, spec.data.format);
    const svg = await renderVegaLite({ ...spec, data: { values } });
    expect(svg).toBe(files.get('demo.svg'));
    expect(svg).toContain('share of games');
    expect(svg).toContain('a &amp; b');
  });

  it('has a light theme by default and a dark one on request', async () => {
    expect(await renderPlot(plot)).toMatch(/<rect width="\d+" height="\d+" fill="white"/);
    expect(await renderPlot(plot, 'dark')).toMatch(/<rect width="\d+" height="\d+" fill="#15171c"/);
  });

  it('refuses names that cannot be files or fields', () => {
    expect(() => plotSpec({ ...plot, name: '../x' })).toThrow(/plot name "..\/x"/);
    expect(() => plotSpec({ ...plot, columns: ['team', 'share.x', 'lower'] })).toThrow(/share\.x must be identifiers/);
    expect(() => plotSpec({ ...plot, rows: [['a', 1]] })).toThrow(/row 1 has 2 values; there are 3 columns/);
  });
});

describe('the reports', () => {
  it('format, tabulate, escape and plot through src/report, with no helpers or hand-drawn SVG of their own', () => {
    for (const file of ['src/tournament/report.ts', 'src/tournament/reproduce.ts', 'src/survey/report.ts']) {
      const text = readFileSync(file, 'utf8');
      const own = [...text.matchAll(/(?:function|const)\s+(pct|ci|num|pValue|p|interval|table|htmlTable|escape\w*|mdText)\s*[=(]/g)].map((m) => m[1]);
      expect({ file, own }).toEqual({ file, own: [] });
      expect(text).not.toMatch(/<svg|<rect |<line /);
      expect(text).toMatch(/from '\.\.\/report\/format'/);
    }
  });
});
