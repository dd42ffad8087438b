/**
 * A missing, damaged or changed GGUF file: the llm team is refused, naming the file and what
 * to do (npm run llm:pull, HILLMIND_LLM_GGUF, or a server), in the registry and on the
 * command line; nothing crashes.
 */
import { execFile } from 'node:child_process';
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalEngine, LocalModelError } from '../../src/llm/node/localEngine';
import { nodeLlmAccess } from '../../src/llm/node';
import { parseLlmSpec } from '../../src/llm/settings';
import { DEFAULT_CONFIG } from '../../src/sim';
import { createPlatform, createTeam, teamAvailability } from '../../src/teams';
import { HAVE_LOCAL_MODEL, IN_CI, LOCAL_MODEL_PATH, LOCAL_ENGINE_FILE } from '../helpers/localModel';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'hillmind-gguf-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const WHAT_TO_DO = /npm run llm:pull.*HILLMIND_LLM_GGUF=<path to a \.gguf file>.*OPENAI_BASE_URL and LLM_MODEL/s;

/** The llm team on the environment given (scripted skills: no trained models needed). */
async function llmTeam(env: Record<string, string>) {
  const ctx = { team: 0 as const, seed: 1, config: DEFAULT_CONFIG, platform: createPlatform({ llm: nodeLlmAccess({ spec: parseLlmSpec({ LLM_SKILLS: 'scripted', ...env }) }) }) };
  return createTeam('llm', ctx);
}

describe('a GGUF file that cannot be used', () => {
  it('missing: refused before loading, naming the file and what to do', async () => {
    const missing = join(dir, 'nowhere', 'model.gguf');
    await expect(llmTeam({ HILLMIND_LLM_GGUF: missing })).rejects.toThrow(`team 'llm' is not available: HILLMIND_LLM_GGUF names ${missing}, which does not exist`);
    const probe = await teamAvailability('llm', createPlatform({ llm: nodeLlmAccess({ spec: parseLlmSpec({ HILLMIND_LLM_GGUF: missing, LLM_SKILLS: 'scripted' }) }) }));
    expect(probe.ok ? '' : probe.reason).toMatch(WHAT_TO_DO);
  });

  it('not a GGUF file at all: the team cannot start, and the error names the file and what to do', async () => {
    const garbage = join(dir, 'garbage.gguf');
    writeFileSync(garbage, Buffer.alloc(64 * 1024, 0x5a));
    const error = await llmTeam({ HILLMIND_LLM_GGUF: garbage }).then(
      () => null,
      (err: Error) => err.message,
    );
    expect(error).toContain(`cannot load the local model file ${garbage}: it is damaged, incomplete or not a GGUF model`);
    expect(error).toMatch(/Invalid GGUF magic/);
    expect(error).toMatch(/run npm run llm:pull to fetch the local model .*or set HILLMIND_LLM_GGUF=<path to a \.gguf file>, or OPENAI_BASE_URL and LLM_MODEL/);
  }, 60_000);

  it.runIf(HAVE_LOCAL_MODEL || IN_CI)('cut short: the team cannot start, and says how much is missing', async () => {
    const cut = join(dir, 'cut.gguf');
    const head = Buffer.alloc(8 << 20);
    const fd = openSync(LOCAL_MODEL_PATH, 'r');
    readSync(fd, head, 0, head.length, 0);
    closeSync(fd);
    writeFileSync(cut, head);
    await expect(llmTeam({ HILLMIND_LLM_GGUF: cut })).rejects.toThrow(new RegExp(`cannot load the local model file ${cut}: .*the file is cut short: ${head.length} bytes of the \\d+ its header describes.*npm run llm:pull`));
  }, 60_000);

  it('a pulled model that changed since it was verified: refused, saying to pull again', async () => {
    const models = join(dir, 'models');
    mkdirSync(models, { recursive: true });
    const file = join(models, LOCAL_ENGINE_FILE.file);
    writeFileSync(file, 'GGUF, but not the one that was pulled');
    writeFileSync(`${file}.sha256`, JSON.stringify({ sha256: LOCAL_ENGINE_FILE.sha256, size: LOCAL_ENGINE_FILE.bytes, mtimeMs: 0 }));
    await expect(llmTeam({ HILLMIND_LLM_DIR: models })).rejects.toThrow(`the local model gemma3-270m is not pulled yet, or ${file} changed since npm run llm:pull verified it (run npm run llm:pull)`);
  });

  it('a file whose bytes are not the pinned digest is refused before it loads, naming both digests', async () => {
    const file = join(dir, 'pinned.gguf');
    writeFileSync(file, 'GGUF, some other bytes');
    const load = LocalEngine.load({ gguf: file, model: 'pinned', threads: 1, sequences: 1, contextSize: 256, help: 'pull it again', sha256: 'a'.repeat(64) });
    await expect(load).rejects.toThrow(LocalModelError);
    await expect(load).rejects.toThrow(
      new RegExp(`^the local model file ${file} is damaged or changed: its sha256 is [0-9a-f]{64}, not the pinned ${'a'.repeat(64)}; pull it again$`),
    );
  });

  it.runIf(HAVE_LOCAL_MODEL || IN_CI)('a pulled model with one flipped byte, its size and mtime kept (its note still says verified), is not served', async () => {
    const models = join(dir, 'flipped');
    mkdirSync(models, { recursive: true });
    const file = join(models, LOCAL_ENGINE_FILE.file);
    copyFileSync(LOCAL_MODEL_PATH, file);
    const { atime, mtime, size } = statSync(file);
    // One byte in the weights, far past the header, so the file still reads as a whole GGUF.
    const at = Math.floor(size * 0.75);
    const fd = openSync(file, 'r+');
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, at);
    byte[0] = byte[0]! ^ 0x01;
    writeSync(fd, byte, 0, 1, at);
    closeSync(fd);
    utimesSync(file, atime, mtime);
    writeFileSync(`${file}.sha256`, JSON.stringify({ sha256: LOCAL_ENGINE_FILE.sha256, size, mtimeMs: statSync(file).mtimeMs }));
    await expect(llmTeam({ HILLMIND_LLM_DIR: models })).rejects.toThrow(
      new RegExp(`cannot start: the local model file ${file} is damaged or changed: its sha256 is [0-9a-f]{64}, not the pinned ${LOCAL_ENGINE_FILE.sha256}; run npm run llm:pull`),
    );
  }, 120_000);

  it.runIf(HAVE_LOCAL_MODEL || IN_CI)('npm run match says the same and exits 1', async () => {
    const garbage = join(dir, 'garbage-cli.gguf');
    copyFileSync(join(ROOT, 'package.json'), garbage);
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OPENAI_') && !k.startsWith('LLM_')));
    const r = await new Promise<{ code: number; stderr: string }>((done) => {
      execFile(process.execPath, ['--import', 'tsx', 'src/cli/match.ts', '--blue', 'llm', '--red', 'bt-scripted'], { cwd: ROOT, timeout: 60_000, env: { ...clean, HILLMIND_LLM_GGUF: garbage } }, (err, _stdout, stderr) =>
        done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stderr }),
      );
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: team 'llm' is not available: the language model cannot start: cannot load the local model file ${garbage}`);
    expect(r.stderr).toContain('npm run llm:pull');
  }, 60_000);
});
