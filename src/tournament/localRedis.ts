/**
 * A throwaway redis-server on a free loopback port, with nothing saved to disk: for the
 * queue's tests, its benchmark and demonstrations. Stopped by its PID.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';

/** Debian's redis-server (apt-get install -y redis-server), or REDIS_SERVER. */
export function redisServerPath(env: Readonly<Record<string, string | undefined>>): string | null {
  for (const path of [env.REDIS_SERVER, '/usr/bin/redis-server', '/usr/local/bin/redis-server']) {
    if (path && existsSync(path)) return path;
  }
  return null;
}

export interface LocalRedis {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}

function started(child: ChildProcess, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start in ${timeoutMs / 1000} s: ${output}`)), timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}): ${output}`));
    });
  });
}

/**
 * Start redis-server (extra arguments such as ['--requirepass', 's3cret'] after the defaults);
 * on `port` when given (a restart of one that was stopped: it comes back empty).
 */
export async function startLocalRedis(serverPath: string, extraArgs: readonly string[] = [], port?: number): Promise<LocalRedis> {
  for (let attempt = 0; ; attempt++) {
    const chosen = port ?? (await freePort());
    const child = spawn(serverPath, ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extraArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      await started(child, 20_000);
    } catch (err) {
      child.kill('SIGKILL');
      if (attempt < 3 && port === undefined) continue; // the port was taken between finding and binding it
      throw err;
    }
    child.stdout!.resume();
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    return {
      url: `redis://127.0.0.1:${chosen}`,
      port: chosen,
      pid: child.pid!,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) {
          process.kill(child.pid!, 'SIGKILL');
          await exited;
        }
      },
    };
  }
}
