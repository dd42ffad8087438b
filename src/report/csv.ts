/**
 * CSV as pandas (`read_csv`) and R (`read.csv`) read it by default: a header row, commas,
 * CRLF line ends (RFC 4180), fields quoted only where they hold a comma, a quote, a line
 * break or edge spaces. Numbers are written in full precision (the tables are data, not
 * print); a missing or undefined value (null, undefined, NaN) is an empty field, which both
 * read as NA; ±Infinity is written "Inf"/"-Inf", which both read as infinite. Text columns
 * named in `textColumns` that a spreadsheet would run as a formula (starting with = + - @,
 * tab or carriage return) get a leading apostrophe.
 */

export type CsvValue = string | number | boolean | null | undefined | object;

function cell(value: CsvValue, text: boolean): string {
  if (value === null || value === undefined) return '';
  let s: string;
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return '';
    s = value === Infinity ? 'Inf' : value === -Infinity ? '-Inf' : String(value);
  } else if (typeof value === 'boolean') {
    s = value ? 'true' : 'false';
  } else {
    s = typeof value === 'string' ? value : JSON.stringify(value);
    if (text && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  }
  return /[",\r\n]/.test(s) || s !== s.trim() ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One CSV document; every row must have as many fields as the header. */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvValue[])[], textColumns: ReadonlySet<string> = new Set()): string {
  const lines = [header.map((h) => cell(h, true)).join(',')];
  rows.forEach((r, n) => {
    if (r.length !== header.length) throw new Error(`CSV row ${n + 1} has ${r.length} fields; the header has ${header.length} (${header.join(', ')})`);
    lines.push(r.map((v, i) => cell(v, textColumns.has(header[i]!))).join(','));
  });
  return `${lines.join('\r\n')}\r\n`;
}
