/**
 * Which reverse proxies the server believes about a client's address (HILLMIND_TRUST_PROXY).
 * The proxy's per-client shares, its rate limit and the study's limits key on the client's
 * address; behind nginx or a load balancer every request comes from the proxy's, so all
 * participants would share one client's limits. Naming the proxies makes the server read
 * the client from X-Forwarded-For where, and only where, the connection comes from one of
 * them. "Trust every hop" is not offered: any client could then name itself another address
 * in the header and step around every per-client limit.
 *
 * Entries: an IPv4 or IPv6 address, a CIDR range (10.0.0.0/8, fd00::/8), or one of the
 * named ranges fastify's proxy-addr knows: loopback, linklocal, uniquelocal.
 */
import { isIP } from 'node:net';

const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'] as const;

function entryProblem(entry: string): string | null {
  if ((NAMED_RANGES as readonly string[]).includes(entry)) return null;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length > 0) return `'${entry}' is not an address, a CIDR range or one of ${NAMED_RANGES.join(', ')}`;
  if (prefix === undefined) return null;
  const bits = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) return `'${entry}' has a prefix length that is not 0-${bits}`;
  return null;
}

/** The trusted proxies a comma-separated setting names; throws, naming every bad entry, on one it cannot read. */
export function parseTrustedProxies(text: string | undefined, setting = 'HILLMIND_TRUST_PROXY'): string[] {
  const entries = (text ?? '').split(',').map((e) => e.trim()).filter(Boolean);
  const problems = entries.map(entryProblem).filter((p): p is string => p !== null);
  if (problems.length > 0) {
    throw new Error(`${setting}: ${problems.join('; ')} (expected the reverse proxies in front of the server, comma-separated, e.g. 127.0.0.1 or 10.0.0.0/8 or loopback)`);
  }
  return entries;
}
