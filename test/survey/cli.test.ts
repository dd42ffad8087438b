/**
 * npm run survey: create refuses teams this machine cannot play and says which; it prints
 * the address the server really serves (PORT, HOST, --base-url) and whether a server
 * answers there; list shows studies.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LOCAL_MODEL, LOCAL_MODELS, engineFile } from '../../src/llm/localModels';
import { createAppServer, healthRoute, listen } from '../../src/server/server';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hillmind-survey-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function surveyEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HILLMIND_STUDY_DB: join(dir, 'studies.sqlite'), HILLMIND_MODELS: join(dir, 'no-models'), ...extra };
  for (const key of ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'LLM_MODEL', 'PORT', 'HOST']) if (!(key in extra)) delete env[key];
  return env;
}

function survey(args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/survey.ts', ...args], { encoding: 'utf8', env: surveyEnv() });
}

/** The same, without blocking this process (a server here must answer the command). */
async function surveyAsync(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/survey.ts', ...args], { encoding: 'utf8', env: surveyEnv(env) });
  return stdout;
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
    // The consent page's contact and ethics fields are still the defaults: create says to fill them in.
    expect(r.stdout).toMatch(/The consent page still says to fill in "contact" and "ethics": set them in the config before inviting participants\./);
    expect(r.stdout).not.toMatch(/Language model/); // no team here plays through one
    expect(r.stdout).toContain('http://example.test:8080/study/cli-study');
    expect(r.stdout).toMatch(/Admin token:\s+[A-Za-z0-9_-]{43}/);
    const list = survey(['list']);
    expect(list.stdout).toMatch(/cli-study\s+play\s+open\s+0 started/);
    // The address given at create, stored with the study: not this shell's (unset) PORT.
    expect(list.stdout).toMatch(/cli-study .* http:\/\/example\.test:8080\/study\/cli-study$/m);
    expect(list.stdout).not.toContain('localhost:5173');
    expect(survey(['export', '--study', 'nope', '--format', 'csv', '--out', join(dir, 'x.csv')]).stderr).toMatch(/no study 'nope'/);
    expect(survey(['frobnicate']).status).toBe(2);
  });

  it("create warns where the study's own text disagrees with its settings", () => {
    const config = join(dir, 'short.json');
    const instructions = 'Hold the zone alone for 8 seconds in total to win. After 60 seconds without a winner, the episode is a draw.';
    writeFileSync(config, JSON.stringify({ teams: ['bt-scripted', 'heuristic'], episodeSeconds: 20, instructions }));
    const r = survey(['create', '--config', config, '--id', 'cli-short']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      `The study's own text disagrees with its settings: correct the config before inviting participants.\n  instructions: "After 60 seconds without a winner, the episode is a draw." says 60 seconds, but this study's episodes end in a draw after 20 s (episodeSeconds).`,
    );
    // Text computed from the settings never disagrees.
    const computed = survey(['create', '--teams', 'bt-scripted,heuristic', '--id', 'cli-computed']).stdout;
    expect(computed).not.toMatch(/disagrees/);
    // No team asks a language model: nothing to warm.
    expect(computed).not.toMatch(/llm:warm/);
  });

  it('create with llm says which model it plays with, that the embedded Gemma 3 270M is untuned, and points at the exam', async () => {
    // A file with the embedded model's name: create reads the settings and never runs the model.
    const gguf = join(dir, engineFile(LOCAL_MODELS[DEFAULT_LOCAL_MODEL]!).file);
    writeFileSync(gguf, '');
    const stdout = await surveyAsync(['create', '--teams', 'llm,heuristic,random', '--id', 'llm-study', '--base-url', 'http://example.test'], {
      HILLMIND_LLM_GGUF: gguf,
      HILLMIND_MODELS: 'models',
    });
    expect(stdout).toMatch(/^Language model for llm: gemma-3-270m-q4_k_m-strategist \(local llama\.cpp[^\n]*\)\.$/m);
    expect(stdout).toMatch(/embedded Gemma 3 270M, untuned \(without its shipped adapter[\s\S]*kappa about 0[\s\S]*OPENAI_BASE_URL and LLM_MODEL/);
    expect(stdout).toMatch(/strategist exam \(results\/exam\/[^\n]*kappa with the rules|No strategist exam of it in results\/exam\/: npm run llm:exam measures how it plays/);
    expect(stdout).toContain('Before participants come, with the server stopped: npm run llm:warm -- --study llm-study fills its decision cache');
  });

  it('create prints the address the server serves with this PORT and HOST, and says whether it answers', async () => {
    const running = await listen(createAppServer({ root: dir, routes: [healthRoute()] }), 0);
    try {
      const up = await surveyAsync(['create', '--teams', 'bt-scripted,heuristic', '--id', 'port-study'], { PORT: String(running.port) });
      expect(up).toContain(`Participants: http://localhost:${running.port}/study/port-study`);
      expect(up).toContain(`Progress:     http://localhost:${running.port}/study/port-study/admin`);
      expect(up).toContain(`The server answers at http://localhost:${running.port}.`);
    } finally {
      await running.close();
    }
    const down = await surveyAsync(['create', '--teams', 'bt-scripted,heuristic', '--id', 'host-study'], { PORT: '5999', HOST: '192.0.2.7' });
    expect(down).toContain('Participants: http://192.0.2.7:5999/study/host-study');
    expect(down).toMatch(/No server answers at http:\/\/192\.0\.2\.7:5999 yet: start it with npm start in a shell with the same PORT and HOST, or pass --base-url/);
    // Listed from a shell with another PORT, each study keeps the address it was created for.
    const list = await surveyAsync(['list'], { PORT: '6111' });
    expect(list).toMatch(/^host-study .* http:\/\/192\.0\.2\.7:5999\/study\/host-study$/m);
    expect(list).not.toContain(':6111');
  });
});
