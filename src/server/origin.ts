/**
 * What the API takes from browsers: requests from pages of the server's own origin, with
 * JSON bodies. Any site a user visits can make the browser send a "simple" cross-site
 * POST (text/plain, no preflight) with the user's network position; refusing other
 * origins (403) and other content types (415) before a body is read keeps the LLM key and
 * the study's data to this server's own pages. Requests without an Origin header (curl,
 * scripts, same-origin navigations) carry no other site's intent and pass.
 *
 * The Host header is checked on every request (foreignHost): a page of a site whose DNS
 * name is made to point at this machine (DNS rebinding) is same-origin with itself, so
 * Origin checks pass, but its requests name that site as their Host.
 */
import type { IncomingMessage } from 'node:http';

/** Host names every server answers to: this machine's loopback names. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** A host name as it appears in a Host header, lower case, without its port (IPv6 addresses in brackets); null when it is not one. */
export function hostName(host: string): string | null {
  const trimmed = host.trim().toLowerCase();
  const bracketed = trimmed.includes(':') && !trimmed.startsWith('[') && !/^[^:]*:\d*$/.test(trimmed) ? `[${trimmed}]` : trimmed;
  try {
    const url = new URL(`http://${bracketed}`);
    return url.hostname === '' || url.username !== '' || url.pathname !== '/' ? null : url.hostname;
  } catch {
    return null;
  }
}

/** The host names a server answers to: the loopback ones and `extra` (the host it binds, a deployment's names). */
export function allowedHosts(extra: readonly string[] = []): ReadonlySet<string> {
  return new Set([...LOOPBACK_HOSTS, ...extra].map(hostName).filter((h): h is string => h !== null));
}

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

/** A 403 when the request names another host than the server's own (a request without a Host header is no browser's and passes). */
export function foreignHost(req: IncomingMessage, allowed: ReadonlySet<string>): Refusal | null {
  const host = header(req, 'host');
  if (host === undefined) return null;
  const name = hostName(host);
  if (name !== null && allowed.has(name)) return null;
  return {
    status: 403,
    message: `this server does not answer to the host '${host.slice(0, 100)}'; it answers to ${[...allowed].join(', ')} (a deployment adds its names with HILLMIND_HOSTS)`,
  };
}

/** A 415 unless the body is declared JSON. */
export function notJson(req: IncomingMessage): Refusal | null {
  return /^application\/json\s*(;|$)/i.test(header(req, 'content-type') ?? '') ? null : { status: 415, message: 'send JSON with Content-Type: application/json' };
}
