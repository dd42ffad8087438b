/**
 * The shape of the code (DESIGN.md): no import cycle anywhere in src, sim and stats import
 * nothing of ours, Phaser only in src/web, the openai SDK and the local engine
 * (node-llama-cpp) only in src/llm, what needs Node in src/llm/node/ and never in what the
 * page loads, and no layer imports one above it.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve('src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

interface Imports {
  /** Files of ours this file imports, relative to src. */
  readonly local: string[];
  /** Packages it imports. */
  readonly packages: string[];
}

/** Static imports and re-exports, type-only ones included (dynamic imports by a literal path count too). */
function importsOf(file: string): Imports {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
  const local: string[] = [];
  const packages: string[] = [];
  for (const spec of specifiers) {
    if (!spec.startsWith('.')) {
      packages.push(spec);
      continue;
    }
    const target = resolve(dirname(file), spec.replace(/\?.*$/, ''));
    const path = [`${target}.ts`, join(target, 'index.ts'), target].find((p) => existsSync(p) && statSync(p).isFile());
    if (path?.endsWith('.ts')) local.push(relative(SRC, path));
  }
  return { local, packages };
}

const files = sources(SRC).map((f) => relative(SRC, f));
const graph = new Map(files.map((f) => [f, importsOf(join(SRC, f))]));
const layer = (file: string) => file.split('/')[0]!;

describe('the layers of src', () => {
  // Type-only imports are erased before anything runs, but a circle through them still ties
  // its files together: none can be read, tested or moved without the others.
  it('have no import cycle, type-only imports included', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      stack.push(file);
      for (const next of graph.get(file)!.local) {
        if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].join(' -> '));
        else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of files) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });

  it('point one way: cli -> web, server, survey, tournament -> match -> teams -> llm -> skills -> sim', () => {
    // Each layer may import the layers listed after it (stats and report from anywhere, sim, stats and report nothing).
    const below: Record<string, readonly string[]> = {
      sim: [],
      stats: [],
      // Formatting, tables, the page shell and plots: every report, the exam, the admin page and training's curve.
      report: [],
      skills: ['report', 'sim', 'stats'],
      llm: ['report', 'skills', 'sim', 'stats'],
      teams: ['report', 'llm', 'skills', 'sim', 'stats'],
      match: ['report', 'teams', 'llm', 'skills', 'sim', 'stats'],
      train: ['report', 'match', 'teams', 'llm', 'skills', 'sim', 'stats'],
      tournament: ['report', 'match', 'teams', 'llm', 'skills', 'sim', 'stats'],
      survey: ['report', 'match', 'teams', 'llm', 'skills', 'sim', 'stats'],
      // Teaching the local model: teachers read play, caches, replays and studies; the games judge it.
      tune: ['survey', 'train', 'report', 'match', 'teams', 'llm', 'skills', 'sim', 'stats'],
      server: ['survey', 'tournament', 'report', 'match', 'teams', 'llm', 'skills', 'sim', 'stats'],
      web: ['survey', 'report', 'match', 'teams', 'llm', 'skills', 'sim', 'stats'],
      cli: ['bench', 'web', 'server', 'survey', 'tournament', 'tune', 'report', 'train', 'match', 'teams', 'llm', 'skills', 'sim', 'stats'],
      // Benchmarks, load generators and the browser-test harness measure or drive every layer; no product code uses them.
      bench: ['web', 'server', 'survey', 'tournament', 'tune', 'report', 'train', 'match', 'teams', 'llm', 'skills', 'sim', 'stats'],
    };
    const upward: string[] = [];
    for (const [file, { local }] of graph) {
      const from = layer(file);
      for (const target of local) {
        const to = layer(target);
        if (to !== from && !below[from]?.includes(to)) upward.push(`${file} imports ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('keep benchmarks and test drivers in src/bench, which only `npm run bench` imports', () => {
    const users = [...graph]
      .filter(([file, { local }]) => layer(file) !== 'bench' && local.some((target) => layer(target) === 'bench'))
      .map(([file]) => file);
    expect(users).toEqual(['cli/bench.ts']);
  });

  it('keep Phaser in src/web and the openai SDK in src/llm', () => {
    const misplaced: string[] = [];
    for (const [file, { packages }] of graph) {
      if (packages.some((p) => p === 'phaser' || p.startsWith('phaser/')) && layer(file) !== 'web') misplaced.push(`${file}: phaser`);
      if (packages.some((p) => p === 'openai' || p.startsWith('openai/')) && layer(file) !== 'llm') misplaced.push(`${file}: openai`);
    }
    expect(misplaced).toEqual([]);
  });

  it('load no ONNX engine: the page and Node play and check models through the TypeScript network', () => {
    // onnxruntime is the reference the tests hold the network to; only the inference bench
    // row (a developer's tool) loads it beside the network, when it runs.
    const engines = [...graph]
      .filter(([, { packages }]) => packages.some((p) => p.startsWith('onnxruntime-')))
      .map(([file]) => file);
    expect(engines).toEqual(['bench/inference.ts']);
    const source = readFileSync(join(SRC, 'bench/inference.ts'), 'utf8');
    expect(source, 'the bench loads onnxruntime-node only when its row runs').not.toMatch(/^\s*import\b[^;]*from\s+['"]onnxruntime-/m);
  });

  it('keep what needs Node in src/llm/node/, so the page may import the rest of src/llm', () => {
    const nodeOnly = (packages: readonly string[]) => packages.some((p) => p.startsWith('node:') || p === 'node-llama-cpp' || p === 'openai' || p.startsWith('openai/'));
    const misplaced = [...graph]
      .filter(([file, { packages, local }]) => file.startsWith('llm/') && !file.startsWith('llm/node/') && (nodeOnly(packages) || local.some((t) => t.startsWith('llm/node/'))))
      .map(([file]) => file);
    expect(misplaced).toEqual([]);
  });

  it('keep the local engine (node-llama-cpp) in src/llm, and out of everything the pages load', () => {
    const misplaced: string[] = [];
    for (const [file, { packages }] of graph) {
      if (packages.some((p) => p === 'node-llama-cpp') && layer(file) !== 'llm') misplaced.push(`${file}: node-llama-cpp`);
    }
    expect(misplaced).toEqual([]);
    // What the product page and the study page import, all the way down.
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const next of graph.get(file)!.local) visit(next);
    };
    visit('web/main.ts');
    visit('web/study/main.ts');
    expect(reached.size).toBeGreaterThan(20);
    const engines = [...reached].filter((f) => graph.get(f)!.packages.some((p) => p === 'node-llama-cpp' || p === 'openai'));
    expect(engines).toEqual([]);
    expect([...reached].filter((f) => f.startsWith('llm/node/')), 'the page reaches a Node-only module of src/llm').toEqual([]);
    // The admin page prints numbers as the reports do (report/format.ts), but renders no plots in the browser.
    expect([...reached].filter((f) => graph.get(f)!.packages.some((p) => p === 'vega' || p === 'vega-lite'))).toEqual([]);
  });
});
