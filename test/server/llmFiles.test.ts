/**
 * The local model's files lent to the page (GET /api/llm/files): listed with their sizes and
 * sha256 read from their bytes, served read-only with Range requests, nothing else in their
 * folders reachable, and nothing lent where the model is not pulled or is not the pinned one.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { type LendableFile, llmFilesSchema, lendableFiles, llmSettingsOf, parseLlmSpec } from '../../src/llm';
import { llmFilesRoutes } from '../../src/server/llmFiles';
import { createAppServer } from '../../src/server/server';
import { tempDir } from '../helpers/tempDirs';

const dir = tempDir('llm-files');

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const modelBytes = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));
const adapterBytes = Buffer.from('GGUF adapter bytes');
mkdirSync(join(dir, 'cache'));
mkdirSync(join(dir, 'models'));
const modelPath = join(dir, 'cache', 'gemma-test.gguf');
const adapterPath = join(dir, 'models', 'strategist-test.gguf');
writeFileSync(modelPath, modelBytes);
writeFileSync(adapterPath, adapterBytes);
// A file beside the model that is not lent.
writeFileSync(join(dir, 'cache', 'other.gguf'), 'not lent');

const lent: LendableFile[] = [
  { role: 'model', path: modelPath, pinnedSha256: sha(modelBytes) },
  { role: 'adapter', path: adapterPath },
];

/** The product's app (with its own static root) and the file routes. */
async function app(files: readonly LendableFile[]): Promise<FastifyInstance> {
  const server = createAppServer({ root: dir, routes: [llmFilesRoutes({ files })] });
  await server.ready();
  return server;
}

describe('the local model files lent to the page', () => {
  it('lists the model first, then its adapter, with their sizes and the sha256 of their bytes', async () => {
    const server = await app(lent);
    const res = await server.inject({ url: '/api/llm/files' });
    expect(res.statusCode).toBe(200);
    expect(llmFilesSchema.parse(res.json())).toEqual({
      files: [
        { role: 'model', file: 'gemma-test.gguf', bytes: 5000, sha256: sha(modelBytes) },
        { role: 'adapter', file: 'strategist-test.gguf', bytes: adapterBytes.length, sha256: sha(adapterBytes) },
      ],
    });
    await server.close();
  });

  it('serves each listed file whole, and a byte range of it', async () => {
    const server = await app(lent);
    const whole = await server.inject({ url: '/api/llm/files/gemma-test.gguf', headers: { 'accept-encoding': 'br, gzip' } });
    expect(whole.statusCode).toBe(200);
    // As they are, never compressed on the way (the server's CPU, for every page).
    expect(whole.headers['content-encoding']).toBeUndefined();
    expect(whole.rawPayload.equals(modelBytes)).toBe(true);
    expect(whole.headers['accept-ranges']).toBe('bytes');
    const part = await server.inject({ url: '/api/llm/files/gemma-test.gguf', headers: { range: 'bytes=100-199' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 100-199/5000');
    expect(part.rawPayload.equals(modelBytes.subarray(100, 200))).toBe(true);
    const adapter = await server.inject({ url: '/api/llm/files/strategist-test.gguf' });
    expect(adapter.rawPayload.equals(adapterBytes)).toBe(true);
    await server.close();
  });

  it('serves nothing else from their folders, and takes no writes', async () => {
    const server = await app(lent);
    expect((await server.inject({ url: '/api/llm/files/other.gguf' })).statusCode).toBe(404);
    expect((await server.inject({ url: '/api/llm/files/..%2Fmodels%2Fstrategist-test.gguf' })).statusCode).toBe(404);
    expect((await server.inject({ method: 'PUT', url: '/api/llm/files/gemma-test.gguf', payload: 'x' })).statusCode).toBeGreaterThanOrEqual(400);
    await server.close();
  });

  it('lends no model whose bytes are not the pinned ones, saying why: neither lists nor serves it', async () => {
    const server = await app([{ ...lent[0]!, pinnedSha256: 'a'.repeat(64) }]);
    const res = await server.inject({ url: '/api/llm/files' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.message).toMatch(/gemma-test\.gguf is not the pulled model: its SHA-256 is [0-9a-f]{64}, the pin says a{64}/);
    const file = await server.inject({ url: '/api/llm/files/gemma-test.gguf' });
    expect(file.statusCode).toBe(404);
    expect(file.rawPayload.includes(modelBytes.subarray(0, 64))).toBe(false);
    await server.close();
  });

  it('lists a file written again while the server runs by its new bytes', async () => {
    const path = join(dir, 'models', 'rewritten.gguf');
    writeFileSync(path, 'first adapter');
    const server = await app([{ role: 'adapter', path }]);
    const digest = async () => (await server.inject({ url: '/api/llm/files' })).json().files[0].sha256 as string;
    expect(await digest()).toBe(sha(Buffer.from('first adapter')));
    writeFileSync(path, 'second adapter, longer');
    expect(await digest()).toBe(sha(Buffer.from('second adapter, longer')));
    await server.close();
  });

  it('lends nothing where the model is not pulled, or the server asks a model server', async () => {
    const missing = await app([{ role: 'model', path: join(dir, 'absent.gguf'), pinnedSha256: 'b'.repeat(64) }]);
    const res = await missing.inject({ url: '/api/llm/files' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.message).toMatch(/absent\.gguf is not there: run npm run llm:pull/);
    await missing.close();
    const none = await app([]);
    expect((await none.inject({ url: '/api/llm/files' })).json().error.message).toMatch(/lends no model/);
    await none.close();
  });

  it('lends the pulled model and the shipped adapter of the default settings, and nothing of a model server', () => {
    const local = llmSettingsOf(parseLlmSpec({ HILLMIND_LLM_DIR: '/m' }));
    if (!local.ok) throw new Error(local.error);
    expect(lendableFiles(local.settings)).toEqual([
      { role: 'model', path: '/m/gemma-3-270m-q4_k_m-strategist.gguf', pinnedSha256: '4167424a3106056bfe92a9da6b9434f17d3813c1bcab64dbf1d0b62fe791163b' },
      { role: 'adapter', path: 'models/strategist-gemma3-270m.gguf' },
    ]);
    const remote = llmSettingsOf(parseLlmSpec({ OPENAI_BASE_URL: 'http://localhost:11434/v1', LLM_MODEL: 'gemma3:27b' }));
    if (!remote.ok) throw new Error(remote.error);
    expect(lendableFiles(remote.settings)).toEqual([]);
  });
});
