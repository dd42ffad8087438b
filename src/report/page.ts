/**
 * The one HTML page every report is written as: a standalone document (no scripts, no
 * links out) that opens from disk and prints on white. Reports share its style and add
 * their own rules after it.
 */
import { escapeXml } from './format';

/** What every report page shares: the type, the measure, tables and figures. */
export const REPORT_STYLE = `body{background:#fff;color:#222;font:14px/1.5 system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}
h1,h2{font-weight:600} table{border-collapse:collapse;margin:1em 0} figure{margin:1em 0} .note,figcaption{color:#666;font-size:13px}`;

export interface HtmlPage {
  /** The document's title (the browser's tab). */
  readonly title: string;
  /** The page's heading; the title when absent. */
  readonly heading?: string;
  /** CSS rules of this report, after the shared ones. */
  readonly style?: string;
  /** The page's HTML after its heading, written (and escaped) by the report. */
  readonly body: string;
}

/** A report's whole HTML document; title and heading are escaped here. */
export function htmlPage(page: HtmlPage): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeXml(page.title)}</title>
<style>
${REPORT_STYLE}${page.style ? `\n${page.style}` : ''}
</style></head><body>
<h1>${escapeXml(page.heading ?? page.title)}</h1>
${page.body}
</body></html>
`;
}
