/**
 * Vite's dev server for the browser tests, with the LLM proxy plugin, on a free port: the
 * model settings given are its only ones (the test's own OPENAI_*, LLM_* and HILLMIND_LLM_*
 * are dropped).
 */
import { fileURLToPath } from 'node:url';
import { type ServerProcess, freePort, startChildServer } from '../../src/bench/harness';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export async function startDevServer(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && !k.startsWith('OPENAI_') && !k.startsWith('LLM_') && !k.startsWith('HILLMIND_LLM_')),
  );
  return startChildServer({
    args: ['node_modules/vite/bin/vite.js', '--port', String(port), '--strictPort', '--host', '127.0.0.1'],
    cwd: ROOT,
    env: { ...base, ...env },
    readyPath: '/api/llm/status',
    name: 'vite',
    timeoutMs: 30_000,
    port,
  });
}
