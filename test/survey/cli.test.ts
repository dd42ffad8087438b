/** npm run survey: create refuses teams this machine cannot play and says which; list shows studies. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hillmind-survey-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function survey(args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, HILLMIND_STUDY_DB: join(dir, 'studies.sqlite'), HILLMIND_MODELS: join(dir, 'no-models') };
  for (const key of ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'LLM_MODEL']) delete env[key];
  return spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/survey.ts', ...args], { encoding: 'utf8', env });
}

describe('npm run survey', () => {
  it('create with the default teams says which are unavailable here and what to do', () => {
    const r = survey(['create']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/not available on this machine/);
    expect(r.stderr).toMatch(/^ {2}bt: /m);
    expect(r.stderr).toMatch(/^ {2}llm: /m);
    expect(r.stderr).toMatch(/^ {2}flat: /m);
    expect(r.stderr).toMatch(/--teams bt-scripted,heuristic,random/);
  });

  it('create with available teams prints the study URL and admin token; list shows it', () => {
    const r = survey(['create', '--teams', 'bt-scripted,heuristic,random', '--id', 'cli-study', '--base-url', 'http://example.test:8080/']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('http://example.test:8080/study/cli-study');
    expect(r.stdout).toMatch(/Admin token:\s+[A-Za-z0-9_-]{43}/);
    const list = survey(['list']);
    expect(list.stdout).toMatch(/cli-study\s+play\s+open\s+0 started/);
    expect(survey(['export', '--study', 'nope', '--format', 'csv', '--out', join(dir, 'x.csv')]).stderr).toMatch(/no study 'nope'/);
    expect(survey(['frobnicate']).status).toBe(2);
  });
});
