import { afterEach, describe, expect, it } from 'vitest';
import { type ApiRoutes, createAppServer } from '../../src/server/server';
import { parseTrustedProxies } from '../../src/server/trustedProxies';
import type { FastifyInstance } from 'fastify';

/** A route that says whom the server takes the client to be (what every per-client limit keys on). */
const whoAmI: ApiRoutes = async (app) => {
  app.get('/api/who', async (request) => ({ ip: request.ip }));
};

describe('the reverse proxies the server believes (HILLMIND_TRUST_PROXY)', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  const clientSeen = async (trustedProxies: readonly string[], remoteAddress: string, forwarded: string) => {
    app = createAppServer({ routes: [whoAmI], trustedProxies });
    const reply = await app.inject({ method: 'GET', url: '/api/who', remoteAddress, headers: { host: 'localhost', 'x-forwarded-for': forwarded } });
    return (reply.json() as { ip: string }).ip;
  };

  it('reads the client from X-Forwarded-For only where the connection comes from a named proxy', async () => {
    // Behind nginx on this machine: each participant is told apart.
    expect(await clientSeen(['127.0.0.1'], '127.0.0.1', '203.0.113.7')).toBe('203.0.113.7');
    expect(await clientSeen(['loopback'], '127.0.0.1', '203.0.113.8')).toBe('203.0.113.8');
    expect(await clientSeen(['10.0.0.0/8'], '10.1.2.3', '203.0.113.9')).toBe('203.0.113.9');
    // A client that is not a named proxy cannot name itself another address.
    expect(await clientSeen(['10.0.0.0/8'], '198.51.100.4', '203.0.113.9')).toBe('198.51.100.4');
    // With none named (the default) the header is never read.
    expect(await clientSeen([], '127.0.0.1', '203.0.113.7')).toBe('127.0.0.1');
  });

  it('takes addresses, CIDR ranges and named ranges, and refuses anything else naming every bad entry', () => {
    expect(parseTrustedProxies(undefined)).toEqual([]);
    expect(parseTrustedProxies(' 127.0.0.1, 10.0.0.0/8 ,fd00::/8,loopback ')).toEqual(['127.0.0.1', '10.0.0.0/8', 'fd00::/8', 'loopback']);
    expect(() => parseTrustedProxies('true,10.0.0.0/33')).toThrow(
      "HILLMIND_TRUST_PROXY: 'true' is not an address, a CIDR range or one of loopback, linklocal, uniquelocal; '10.0.0.0/33' has a prefix length that is not 0-32 (expected the reverse proxies in front of the server, comma-separated, e.g. 127.0.0.1 or 10.0.0.0/8 or loopback)",
    );
  });
});
