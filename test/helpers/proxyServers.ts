/**
 * LLM proxy servers for one test file: each serves the file's temporary root, and after the
 * file's tests every one is closed and the root removed. Call proxyServers at the top of the
 * file (it registers the clean-up with afterAll).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { type LlmConnection, fixedLlmAccess } from '../../src/llm';
import { type LlmProxyOptions, llmProxyRoutes } from '../../src/server/llmProxy';
import { type RunningServer, createAppServer, listen } from '../../src/server/server';

export interface ProxyServers {
  /** The temporary folder the servers serve, for the file's own files too. */
  readonly root: string;
  /** A new server whose proxy reaches `connection`'s model: its base URL. */
  serve(connection: LlmConnection, options?: Omit<LlmProxyOptions, 'access'>): Promise<string>;
}

/** Proxy servers on a temporary root named after `name` (hillmind-<name>-...). */
export function proxyServers(name: string): ProxyServers {
  const root = mkdtempSync(join(tmpdir(), `hillmind-${name}-`));
  const servers: RunningServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    rmSync(root, { recursive: true, force: true });
  });
  return {
    root,
    async serve(connection, options = {}) {
      const running = await listen(createAppServer({ root, routes: [llmProxyRoutes({ access: fixedLlmAccess(connection), ...options })] }), 0);
      servers.push(running);
      return running.url;
    },
  };
}
