/**
 * Principle 4 (DESIGN.md): settings come in through the platform each entry point builds.
 * The environment is read only by the entry points (src/cli, the server's included), and
 * nothing anywhere writes settings into an environment to pass them on. Comments do not
 * count: the source is read by TypeScript's scanner, without its comments.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve('src');

/**
 * Files that start other processes and give them their environment, as a person would
 * (PORT and HOST for the server they test): the child's entry point reads it. Test and
 * benchmark support, never part of a running product.
 */
const CHILD_PROCESS_LAUNCHERS = new Set(['bench/harness.ts']);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The code of a file with its comments blanked (lines kept, so findings name them). */
export function withoutComments(text: string): string {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  let out = '';
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    const token = scanner.getTokenText();
    const comment = kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia;
    out += comment ? token.replace(/[^\n]/g, ' ') : token;
  }
  return out;
}

/** Reading the environment: process.env (also as process?.env), the env export of node:process, or the process through globalThis. */
const READS = [/\bprocess\s*\??\.\s*env\b/, /\bfrom\s+['"](?:node:)?process['"]/, /\bglobalThis\b[^;\n]*\bprocess\b/];

/**
 * Writing settings into an environment: assigning or deleting a variable (env.X = ...,
 * process.env.X ??= ...), or a copy of an environment with variables set
 * ({ ...env, LLM_MODEL: model }), or Object.assign onto one.
 */
const REWRITES = [
  /\benv\s*(?:\.\s*[A-Za-z_]\w*|\[[^\]]+\])\s*(?:\?\?|\|\||&&)?=(?!=)/,
  /\bdelete\s+[\w.]*\benv\b/,
  /\.\.\.\s*[\w.]*\benv\b\s*,[^}]*?\b[A-Z][A-Z0-9]*_[A-Z0-9_]*\s*:/,
  /\bObject\.assign\(\s*[\w.]*\benv\b/,
];

/** Each line of `text` where one of `patterns` matches, as 'file:line: code'. */
export function findings(file: string, text: string, patterns: readonly RegExp[]): string[] {
  const lines = withoutComments(text).split('\n');
  return lines.flatMap((line, i) => (patterns.some((p) => p.test(line)) ? [`${file}:${i + 1}: ${line.trim()}`] : []));
}

describe('the environment', () => {
  const files = sources(SRC).map((path) => ({ file: relative(SRC, path), text: readFileSync(path, 'utf8') }));

  it('is read only by the entry points in src/cli', () => {
    const below = files.filter(({ file }) => !file.startsWith('cli/') && !CHILD_PROCESS_LAUNCHERS.has(file));
    expect(below.flatMap(({ file, text }) => findings(file, text, READS))).toEqual([]);
  });

  it('is never rewritten to pass settings on: they travel in the platform spec', () => {
    const all = files.filter(({ file }) => !CHILD_PROCESS_LAUNCHERS.has(file));
    expect(all.flatMap(({ file, text }) => findings(file, text, REWRITES))).toEqual([]);
  });

  it('the checks find what they look for, and not in comments or look-alikes', () => {
    const read = (code: string) => findings('x.ts', code, READS).length;
    const rewrite = (code: string) => findings('x.ts', code, REWRITES).length;
    expect(read('const m = modelDirFrom(process.env);')).toBe(1);
    expect(read("const dir = process?.env?.HILLMIND_MODELS;")).toBe(1);
    expect(read("import { env } from 'node:process';")).toBe(1);
    expect(read('const proc = (globalThis as { process?: { env?: Env } }).process;')).toBe(1);
    expect(read('// the entry point passes process.env\nconst x = 1;')).toBe(0);
    expect(read('/** reads process.env */ const y = 2;')).toBe(0);
    expect(rewrite('env.LLM_SEQUENCES ??= String(n);')).toBe(1);
    expect(rewrite('process.env.LLM_MODEL = model;')).toBe(1);
    expect(rewrite("env['LLM_THREADS'] = '2';")).toBe(1);
    expect(rewrite('delete process.env.HILLMIND_LLM_GGUF;')).toBe(1);
    expect(rewrite('const next = { ...options.env, LLM_MODEL: model };')).toBe(1);
    expect(rewrite('const e = { ...process.env, LLM_TIMEOUT_MS: String(ms) };')).toBe(1);
    expect(rewrite('Object.assign(process.env, overrides);')).toBe(1);
    expect(rewrite('if (env.LLM_MODEL === undefined) return;')).toBe(0);
    expect(rewrite('const spec = { ...spec, llm: withEngineDefaults(spec.llm, sizes) };')).toBe(0);
    expect(rewrite('const url = `${env.HOST}:${port}`;')).toBe(0);
  });
});
