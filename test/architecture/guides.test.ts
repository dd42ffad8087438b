/**
 * A map for the next engineer (docs/architecture.md): every folder of src/ opens with a
 * short guide, either a README.md or a doc comment at the top of its index.ts, that says
 * what the folder is for and where its jobs live. A new folder without one fails here, as
 * does a guide that names a file the repository does not hold, and an architecture page
 * whose layout leaves a folder out.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve('src');
const folders = readdirSync(SRC).filter((name) => statSync(join(SRC, name)).isDirectory());

/** The folder's guide: its README.md, else the leading doc comment of its index.ts (null when neither). */
function guideOf(folder: string): string | null {
  const readme = join(SRC, folder, 'README.md');
  if (existsSync(readme)) return readFileSync(readme, 'utf8');
  const index = join(SRC, folder, 'index.ts');
  if (!existsSync(index)) return null;
  const head = /^\s*\/\*\*([\s\S]*?)\*\//.exec(readFileSync(index, 'utf8'));
  return head ? head[1]! : null;
}

describe('folder guides', () => {
  it('src/ has folders to guide', () => {
    expect(folders.length).toBeGreaterThan(10);
  });

  it.each(folders)('src/%s opens with a guide', (folder) => {
    const guide = guideOf(folder);
    expect(guide, `src/${folder} has neither a README.md nor a doc comment at the top of index.ts`).not.toBeNull();
    expect(guide!.split(/\s+/).length, `the guide of src/${folder} is too short to guide anyone`).toBeGreaterThan(25);
  });
});

/** The repository's files as git tracks them (a file left untracked on one machine is not the repository's), and their folders. */
const trackedFiles = new Set(execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' }).split('\0').filter(Boolean));
const trackedFolders = new Set([...trackedFiles].flatMap((file) => file.split('/').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('/'))));
const topLevel = new Set([...trackedFiles].map((file) => file.split('/')[0]!));

/** Every guide, by its path in the repository: the READMEs, docs/*.md and each folder's guide. */
function allGuides(): { path: string; text: string }[] {
  const read = (path: string) => ({ path, text: readFileSync(path, 'utf8') });
  const docs = readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => read(`docs/${f}`));
  const folderGuides = folders.flatMap((folder) => {
    const guide = guideOf(folder);
    const readme = `src/${folder}/README.md`;
    return guide === null ? [] : [{ path: existsSync(readme) ? readme : `src/${folder}/index.ts`, text: guide }];
  });
  return [read('README.md'), ...docs, ...folderGuides];
}

/** Source files a guide may name in passing (`config.ts`), or any path under a top-level folder of the repository (`docs/x.md`, models/flat.onnx). */
const SOURCE_FILE = /\.(?:ts|py)$/;
/** A path of plain names: no placeholders (<name>), globs, flags, URLs or options (a:b=c). */
const PLAIN_PATH = /^(?:\.{1,2}\/)*[\w@-][\w.@-]*(?:\/[\w.@-]+)*\/?$/;

/**
 * The repository paths a guide names: link targets that are not URLs, and paths in
 * backticks or in prose that end in a source file's extension or start with a top-level
 * folder of the repository. Output files a command writes (`report.md`, data/studies.sqlite)
 * are neither, so they are not taken for files of the repository.
 */
export function namedPaths(text: string): string[] {
  const named = new Set<string>();
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const path = target!.replace(/[#?].*$/, '');
    if (path && !/^[a-z][a-z+.-]*:/i.test(path)) named.add(path);
  }
  const candidates = [
    ...[...text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!),
    ...[...text.matchAll(/(?<![\w./@<>*-])((?:\.{1,2}\/|[\w@-][\w.@-]*\/)*[\w-]+(?:\.[\w-]+)*\.(?:ts|py))(?![\w/-])/g)].map((m) => m[1]!),
  ];
  for (const candidate of candidates) {
    if (!PLAIN_PATH.test(candidate)) continue;
    const first = candidate.replace(/^(?:\.{1,2}\/)+/, '').split('/')[0]!;
    if (SOURCE_FILE.test(candidate) || (candidate.includes('/') && topLevel.has(first))) named.add(candidate);
  }
  return [...named];
}

/**
 * Whether a path a guide names is the repository's: relative to the guide, to the root or to
 * src/ (guides say llm/prompt.ts). A bare file name (`worker.ts`) may live anywhere below the
 * guide's folder, or, for the READMEs and docs/, anywhere in the repository.
 */
export function holds(guide: string, named: string, files: ReadonlySet<string> = trackedFiles, folders: ReadonlySet<string> = trackedFolders): boolean {
  const path = named.replace(/\/$/, '');
  const bases = [posix.dirname(guide), '.', 'src'];
  if (bases.some((base) => files.has(posix.join(base, path)) || folders.has(posix.join(base, path)))) return true;
  if (path.includes('/')) return false;
  const scope = guide.startsWith('src/') ? `${posix.dirname(guide)}/` : '';
  return [...files].some((file) => file.startsWith(scope) && posix.basename(file) === path);
}

describe('the guides name only files the repository holds', () => {
  const guides = allGuides();

  it('reads every guide, and finds the files they name', () => {
    expect(guides.length).toBeGreaterThan(20);
    expect(guides.flatMap((g) => namedPaths(g.text)).length).toBeGreaterThan(100);
  });

  it.each(guides.map((g) => [g.path, g] as const))('%s', (_, guide) => {
    const missing = namedPaths(guide.text).filter((named) => !holds(guide.path, named));
    expect(missing, `${guide.path} names files the repository does not hold`).toEqual([]);
  });

  it('the check tells names of repository files from other code spans and output files', () => {
    const text = [
      'Run `npm run train`, see `docs/training.md`, [the page](../README.md#play), [site](https://x.org/a.ts),',
      'the pool and its worker (pool.ts, worker.ts), `models/<name>.onnx`, `report.md`, `--out`,',
      '`data/studies.sqlite`, src/cli/serve.ts and ../sim/config.ts.',
    ].join('\n');
    expect(namedPaths(text).sort()).toEqual(['../README.md', '../sim/config.ts', 'docs/training.md', 'pool.ts', 'src/cli/serve.ts', 'worker.ts'].sort());
    const files = new Set(['src/tournament/pool.ts', 'src/cli/worker.ts', 'src/sim/config.ts', 'docs/training.md', 'README.md']);
    const dirs = new Set(['src', 'src/tournament', 'src/cli', 'src/sim', 'docs']);
    const guide = 'src/tournament/README.md';
    expect(['pool.ts', '../sim/config.ts', 'docs/training.md', 'src/cli/'].filter((p) => holds(guide, p, files, dirs))).toHaveLength(4);
    // worker.ts is in src/cli, not in the tournament's folder its guide speaks for.
    expect(holds(guide, 'worker.ts', files, dirs)).toBe(false);
    expect(holds('docs/architecture.md', 'worker.ts', files, dirs)).toBe(true);
  });
});

describe('docs/architecture.md', () => {
  it("lays out every folder of src/, and only those", () => {
    const page = readFileSync('docs/architecture.md', 'utf8');
    const layout = /## Layout\s*```\n([\s\S]*?)```/.exec(page);
    expect(layout, 'docs/architecture.md has a Layout section with a code block').not.toBeNull();
    const listed = [...layout![1]!.matchAll(/^src\/([\w-]+)/gm)].map((m) => m[1]!);
    expect([...listed].sort(), "docs/architecture.md's layout lists src/'s folders").toEqual([...folders].sort());
  });
});
