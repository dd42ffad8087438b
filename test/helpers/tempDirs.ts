/**
 * Temporary folders for a test file: each call makes a fresh folder under the system's
 * temporary directory, and every folder made is removed when the file's tests end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** Returns a maker of fresh folders named `hillmind-<name>-…`; call it at a test file's top level. */
export function tempDirs(name: string): () => string {
  const made: string[] = [];
  afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  return () => {
    const dir = mkdtempSync(join(tmpdir(), `hillmind-${name}-`));
    made.push(dir);
    return dir;
  };
}

/** One fresh folder named `hillmind-<name>-…`, removed when the file's tests end; call it at a test file's top level. */
export function tempDir(name: string): string {
  return tempDirs(name)();
}
