/**
 * What the API takes from browsers: requests from pages of the server's own origin, with
 * JSON bodies. Any site a user visits can make the browser send a "simple" cross-site
 * POST (text/plain, no preflight) with the user's network position; refusing other
 * origins (403) and other content types (415) before a body is read keeps the LLM key and
 * the study's data to this server's own pages. Requests without an Origin header (curl,
 * scripts, same-origin navigations) carry no other site's intent and pass.
 */
import type { IncomingMessage } from 'node:http';

export interface Refusal {
  readonly status: 403 | 415;
  readonly message: string;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** A 403 when the request comes from another site's page; null for the server's own pages and for non-browser clients. */
export function foreignOrigin(req: IncomingMessage): Refusal | null {
  const origin = header(req, 'origin');
  const refused = (from: string): Refusal => ({ status: 403, message: `requests from ${from} are refused: this API answers pages of its own origin only` });
  if (origin === undefined) return header(req, 'sec-fetch-site') === 'cross-site' ? refused('another site') : null;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return refused(`the origin '${origin.slice(0, 100)}'`);
  }
  const own = [header(req, 'host'), header(req, 'x-forwarded-host')].filter((h): h is string => Boolean(h)).map((h) => h.toLowerCase());
  return host !== '' && own.includes(host.toLowerCase()) ? null : refused(origin.slice(0, 100));
}

/** A 415 unless the body is declared JSON. */
export function notJson(req: IncomingMessage): Refusal | null {
  return /^application\/json\s*(;|$)/i.test(header(req, 'content-type') ?? '') ? null : { status: 415, message: 'send JSON with Content-Type: application/json' };
}
