/**
 * Where the queue lives: a Redis address from the command line (redis://host:port, or
 * rediss:// for TLS; user, password and database number may be in it), checked and turned
 * into connection options, and a quick probe so an unreachable or refusing Redis is a
 * clear error at once rather than a hang.
 */
import { isIP } from 'node:net';
import { RedisConnection, type RedisOptions } from 'bullmq';
import { z } from 'zod';

export interface RedisAddress {
  /** What to show: scheme, host and port, never the password. */
  readonly shown: string;
  readonly options: RedisOptions;
}

const addressSchema = z
  .string()
  .trim()
  .pipe(z.url({ protocol: /^rediss?$/, message: 'must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379' }));

/**
 * Parse `--queue`. `password` (from the environment, so it stays out of the process list)
 * is used when the URL has none.
 */
export function parseRedisAddress(text: string, password?: string): RedisAddress {
  const parsed = addressSchema.safeParse(text);
  if (!parsed.success) throw new Error(`--queue ${parsed.error.issues.map((i) => i.message).join('; ')} (got '${text}')`);
  const url = new URL(parsed.data);
  const tls = url.protocol === 'rediss:';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw new Error(`--queue needs a host, e.g. redis://127.0.0.1:6379 (got '${text}')`);
  const port = url.port ? Number(url.port) : 6379;
  const dbText = url.pathname.replace(/^\//, '');
  if (dbText !== '' && !/^\d{1,5}$/.test(dbText)) throw new Error(`--queue database must be a number, as in redis://host:6379/2 (got '${dbText}')`);
  const username = decodeURIComponent(url.username);
  const secret = url.password ? decodeURIComponent(url.password) : password;
  return {
    shown: `${url.protocol}//${url.host}${dbText ? `/${dbText}` : ''}`,
    options: {
      host,
      port,
      ...(dbText ? { db: Number(dbText) } : {}),
      ...(username ? { username } : {}),
      ...(secret ? { password: secret } : {}),
      ...(tls ? { tls: isIP(host) ? {} : { servername: host } } : {}),
      connectTimeout: 10_000,
    },
  };
}

/** Connect once without retrying; throw a readable error when Redis cannot be reached or refuses us. */
export async function probeRedis(address: RedisAddress, timeoutMs = 10_000): Promise<void> {
  let lastError: Error | undefined;
  const connection = new RedisConnection(
    { ...address.options, connectTimeout: timeoutMs, retryStrategy: () => null, maxRetriesPerRequest: 0, enableOfflineQueue: false },
    { shared: false, blocking: false },
  );
  connection.on('error', (err: Error) => (lastError = err));
  let timer: NodeJS.Timeout | undefined;
  try {
    // Ready means connected, authenticated and answering (BullMQ has read the server's version).
    await Promise.race([
      connection.client,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${timeoutMs / 1000} s`)), timeoutMs))),
    ]);
  } catch (err) {
    const reason = ((lastError ?? (err as Error)).message || String(err)).replace(/\.+$/, '');
    throw new Error(`cannot reach Redis at ${address.shown}: ${reason}. Is redis-server running there, and are the address, password and TLS setting (rediss://) right?`);
  } finally {
    clearTimeout(timer);
    await connection.close(true).catch(() => {});
  }
}
