/**
 * A map for the next engineer (docs/architecture.md): every folder of src/ opens with a
 * short guide, either a README.md or a doc comment at the top of its index.ts, that says
 * what the folder is for and where its jobs live. A new folder without one fails here.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
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
