/**
 * The guides say what runs: every code block marked `sh runnable` in README.md and docs/*.md
 * runs, line by line, from the repository's root, and exits 0. The README stays a landing
 * page that links every guide.
 */
import { execSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const files = ['README.md', ...readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

function runnableBlocks(text: string): string[][] {
  const blocks: string[][] = [];
  const fence = /```sh runnable\n([\s\S]*?)```/g;
  for (const m of text.matchAll(fence)) {
    blocks.push(
      m[1]!
        .split('\n')
        .map((line) => line.replace(/\s+#\s.*$/, '').trim())
        .filter((line) => line && !line.startsWith('#')),
    );
  }
  return blocks;
}

const runnable = files.flatMap((file) => runnableBlocks(readFileSync(file, 'utf8')).map((lines, i) => ({ file, block: i + 1, lines })));

describe('the guides', () => {
  it('have runnable blocks to check', () => {
    expect(runnable.length).toBeGreaterThanOrEqual(6);
  });

  it.each(runnable)('$file, runnable block $block: every command exits 0', ({ lines }) => {
    for (const line of lines) {
      try {
        execSync(line, { stdio: 'pipe', encoding: 'utf8', timeout: 240_000 });
      } catch (err) {
        const e = err as { status?: number; stderr?: string };
        throw new Error(`\`${line}\` exited ${e.status}: ${e.stderr ?? ''}`);
      }
    }
  }, 600_000);

  it('the README is a landing page of at most 10 KB that links every guide', () => {
    const readme = readFileSync('README.md', 'utf8');
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(10 * 1024);
    for (const guide of ['playing', 'matches', 'llm', 'training', 'tournaments', 'reproducing', 'studies', 'python', 'benchmarks', 'architecture']) {
      expect(readme, guide).toContain(`(docs/${guide}.md)`);
    }
  });
});
