import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type StudyConfigInput, StudyStore, parseStudyConfig } from '../../src/survey';
import {
  StudyCommandError,
  createStudyCommand,
  exportStudyCommand,
  listStudiesCommand,
  parseExportChoice,
  setStudyOpenCommand,
} from '../../src/survey/commands';
import { RuleChatClient } from '../../src/llm';
import { TEST_PLATFORM, llmPlatform } from '../helpers/platform';

describe('the survey commands, called without the command line', () => {
  let dir: string;
  let dbPath: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hillmind-survey-commands-'));
    dbPath = join(dir, 'studies.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function created(serverAnswers: boolean, study: StudyConfigInput = {}, pageModelFiles = 2, platform = TEST_PLATFORM): Promise<string[]> {
    const lines: string[] = [];
    const address = { baseUrl: 'https://study.example.org', given: true };
    await createStudyCommand(
      { config: parseStudyConfig({ id: 'pilot', teams: ['bt-scripted', 'heuristic'], ...study }), dbPath, address, examDir: join(dir, 'exam') },
      { platform, openStore: () => StudyStore.open(dbPath), serverAnswers: async () => serverAnswers, pageModelFiles },
      (line) => lines.push(line),
    );
    return lines;
  }

  it("refuses a study that runs the llm team's model in the page where the server would lend no model files, before writing anything", async () => {
    const withModel = llmPlatform(new RuleChatClient());
    const inPage = { teams: ['llm', 'bt-scripted'], llmRuns: 'browser' as const };
    await expect(created(true, inPage, 0, withModel)).rejects.toThrow(/^the study runs the language model in each participant's page \(llmRuns: browser\) for llm, but this machine's server lends no model files to pages: .*Pull the model, or set llmRuns to auto or server\.$/);
    expect(existsSync(dbPath)).toBe(false);
    // Asked to choose, the pages ask the server's model: said, not refused.
    const auto = await created(true, { ...inPage, llmRuns: 'auto' }, 0, withModel);
    expect(auto.some((line) => /llmRuns: auto.*every page will ask the server's model\.$/.test(line))).toBe(true);
    // Where the server lends the files, or no llm team plays, nothing is said.
    rmSync(dbPath, { force: true });
    expect((await created(true, inPage, 2, withModel)).some((line) => line.includes('llmRuns'))).toBe(false);
    rmSync(dbPath, { force: true });
    expect((await created(true, { llmRuns: 'browser' }, 0, withModel)).some((line) => line.includes('llmRuns'))).toBe(false);
  });

  it('create asks the injected probe whether the server answers, and list then prints the stored address', async () => {
    const up = await created(true);
    expect(up[0]).toMatch(/^Created play study 'pilot' in .*studies\.db: bt-scripted, heuristic, \d+ episodes? per block\.$/);
    expect(up).toContain('\nParticipants: https://study.example.org/study/pilot');
    expect(up).toContain('\nThe server answers at https://study.example.org.');

    const store = StudyStore.open(dbPath);
    try {
      const listed: string[] = [];
      listStudiesCommand(store, { dbPath, address: { baseUrl: 'http://localhost:1', given: false } }, (line) => listed.push(line));
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatch(/^pilot\s+play\s+open\s+0 started\s+0 completed\s+0 episodes {2}bt-scripted,heuristic {2}https:\/\/study\.example\.org\/study\/pilot$/);
    } finally {
      store.close();
    }
  });

  it('create says so when nothing answers at an address the researcher named', async () => {
    const down = await created(false);
    expect(down).toContain('\nNo Hillmind server answers at https://study.example.org from here yet: make sure it (or the proxy in front of it) serves this address before sharing the links.');
  });

  it('export, close and reopen refuse an unknown study with a StudyCommandError and write nothing', async () => {
    await created(true);
    const store = StudyStore.open(dbPath);
    try {
      const out = join(dir, 'answers.csv');
      const print = () => {};
      expect(() => exportStudyCommand(store, { study: 'nope', choice: parseExportChoice('csv', undefined, false), out, dbPath }, print)).toThrow(
        new StudyCommandError(`no study 'nope' in ${dbPath}`),
      );
      expect(() => readFileSync(out)).toThrow();
      expect(() => setStudyOpenCommand(store, { study: 'nope', open: false, dbPath }, print)).toThrow(StudyCommandError);
      expect(store.getStudy('pilot')?.status).toBe('open');
    } finally {
      store.close();
    }
  });

  it('export choices are checked before any database is opened', () => {
    expect(() => parseExportChoice('xml', undefined, false)).toThrow(new StudyCommandError('--format is csv or json'));
    expect(() => parseExportChoice('csv', 'votes', false)).toThrow(/--table is one of answers, /);
    expect(() => parseExportChoice('json', 'votes', true)).toThrow(/--table is one of/);
    expect(parseExportChoice('json', undefined, true)).toEqual({ format: 'json', replays: true });
    expect(parseExportChoice('csv', 'judgements', false)).toEqual({ format: 'csv', table: 'judgements' });
  });
});
