/**
 * Numbers and text as reports print them, and the one escaper for HTML, SVG and the inline
 * HTML Markdown viewers render. Missing or non-finite values print as "-", so a table
 * never shows NaN; an infinite value that means something (a K/D without deaths) prints
 * as "inf" only where the caller asks for it with {@link num}.
 */

/** A share as a percentage with `digits` decimals ("51.5%"), or "-" when missing. */
export function pct(v: number | null | undefined, digits = 1): string {
  return v === null || v === undefined || !Number.isFinite(v) ? '-' : `${(100 * v).toFixed(digits)}%`;
}

/** An estimate with its interval, "51.5% [41.0%, 62.0%]", or "-" when there is none. */
export function interval(i: { readonly estimate: number; readonly lower: number; readonly upper: number } | null | undefined): string {
  return i && Number.isFinite(i.estimate) ? `${pct(i.estimate)} [${pct(i.lower)}, ${pct(i.upper)}]` : '-';
}

/** A p-value: "<0.001" below a thousandth, else `digits` decimals; "-" when there is none. */
export function pValue(p: number | null | undefined, digits = 3): string {
  return p === null || p === undefined || Number.isNaN(p) ? '-' : p < 0.001 ? '<0.001' : p.toFixed(digits);
}

/** A number with `digits` decimals; ±Infinity as "inf"/"-inf", anything else missing as "-". */
export function num(v: number | null | undefined, digits = 2): string {
  if (v === null || v === undefined || Number.isNaN(v)) return '-';
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return '-inf';
  return v.toFixed(digits);
}

/** Escape text for HTML, SVG and XML, in element content and in quoted attributes alike. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Free text on one Markdown line (or table cell): HTML escaped, pipes, line breaks and emphasis marks neutralised. */
export function mdText(text: string): string {
  return escapeXml(text).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ').replace(/[`*_[\]#]/g, (c) => `\\${c}`);
}

/** A Markdown table; cells are written as given (pass free text through {@link mdText}). */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/** An HTML table; every header and cell is escaped. */
export function htmlTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const head = header.map((h) => `<th>${escapeXml(h)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${escapeXml(c)}</td>`).join('')}</tr>`).join('\n');
  return `<table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}
