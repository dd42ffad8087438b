import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StudyStore, consentPlaceholders, createStudy, parseStudyConfig, parseStudyConfigText, publicStudy, teamsInPlay } from '../../src/survey';
import { TEST_PLATFORM } from '../helpers/platform';

describe('study config', () => {
  it('takes team variants as teams and teammate, by their canonical names, and refuses bad ones by name', () => {
    const c = parseStudyConfig({ teams: ['bt-scripted:reaction=0.5:persona=hesitant', 'bt-scripted', 'heuristic'], teammate: 'bt-scripted:persona=support' });
    expect(c.teams).toEqual(['bt-scripted:persona=hesitant:reaction=0.5', 'bt-scripted', 'heuristic']);
    expect(c.teammate).toBe('bt-scripted:persona=support');
    expect(teamsInPlay(c)).toContain('bt-scripted:persona=hesitant:reaction=0.5');
    expect(() => parseStudyConfig({ teams: ['bt:speed=2', 'heuristic'] })).toThrow(/team 'bt' has no setting 'speed'/);
    expect(() => parseStudyConfig({ teams: ['bt', 'human'] })).toThrow(/'human' is not an AI team/);
  });

  it("defaults to the reference study's protocol", () => {
    const c = parseStudyConfig({});
    expect(c.kind).toBe('play');
    expect(c.teams).toEqual(['bt', 'llm', 'flat']);
    expect(c.episodesPerBlock).toBe(6);
    expect(c.likert.map((l) => [l.id, l.points])).toEqual([
      ['challenge', 5],
      ['skill', 5],
      ['coordination', 5],
      ['enjoyment', 5],
      ['humanlike', 5],
    ]);
    expect(c.open.map((o) => o.id)).toEqual(['behaviours']);
    expect(c.forcedChoice.prompt).toMatch(/competent human players/);
    expect(c.background.map((b) => b.id)).toEqual(['gaming', 'team_games']);
    expect(c.teammate).toBe('bt-scripted');
    expect(c.practice).toEqual({ enabled: true, opponent: 'heuristic', episodeSeconds: 30 });
    expect(c.episodeSeconds).toBeUndefined();
    expect(c.consent).toMatch(/18 or older/);
    // Contact and ethics approval: defaults that say what to fill in, flagged until they are.
    expect(c.contact).toMatch(/^Not filled in yet: .*"contact" in the study config.*email/);
    expect(c.ethics).toMatch(/^Not filled in yet: .*"ethics" in the study config.*ethics committee/);
    expect(consentPlaceholders(c)).toEqual(['contact', 'ethics']);
    const filled = parseStudyConfig({ contact: 'Dr A. Researcher, a.researcher@example.org', ethics: 'Example University ethics board, ref. EX-2026-17' });
    expect(consentPlaceholders(filled)).toEqual([]);
    expect(publicStudy('s1', filled)).toMatchObject({ contact: 'Dr A. Researcher, a.researcher@example.org', ethics: 'Example University ethics board, ref. EX-2026-17' });
  });

  it('refuses unknown keys, unknown teams, repeats and unsafe redirects, saying where', () => {
    expect(() => parseStudyConfig({ episodesPerBlok: 3 })).toThrow(/\(root\).*episodesPerBlok|episodesPerBlok/);
    expect(() => parseStudyConfig({ teams: ['bt', 'human'] })).toThrow(/teams\.1/);
    expect(() => parseStudyConfig({ teams: ['bt', 'bt'] })).toThrow(/must not repeat/);
    expect(() => parseStudyConfig({ teams: ['bt'] })).toThrow(/teams/);
    expect(() => parseStudyConfig({ completion: { redirectUrl: 'javascript:alert(1)' } })).toThrow(/completion\.redirectUrl/);
    expect(() => parseStudyConfig({ likert: [{ id: 'a', prompt: 'x', points: 2 }] })).toThrow(/likert\.0\.points/);
    expect(() => parseStudyConfig({ id: 'Has Spaces' })).toThrow(/id/);
    expect(() => parseStudyConfigText('{', 'study.json')).toThrow(/study\.json is not valid JSON/);
    const ok = parseStudyConfig({ completion: { redirectUrl: 'https://app.prolific.com/submissions/complete?cc=ABC' }, teammate: 'person' });
    expect(ok.completion.redirectUrl).toContain('prolific');
  });

  it('lists the teams a study needs and shows participants nothing that reveals them', () => {
    const c = parseStudyConfig({ teams: ['bt-scripted', 'random'], teammate: 'heuristic', completion: { code: 'SECRET1' } });
    expect(teamsInPlay(c).sort()).toEqual(['bt-scripted', 'heuristic', 'random']);
    expect(teamsInPlay(parseStudyConfig({ teams: ['bt', 'flat'], teammate: 'person', practice: { enabled: false } })).sort()).toEqual(['bt', 'flat']);
    const pub = JSON.stringify(publicStudy('s1', c));
    for (const secret of ['"bt-scripted"', '"random"', '"heuristic"', 'SECRET1']) expect(pub).not.toContain(secret);
    expect(publicStudy('s1', c)).toMatchObject({ blocks: 2, teammate: 'ai' });
  });

  it('says where the llm team runs its model for participants: the server unless the study asks', () => {
    expect(parseStudyConfig({}).llmRuns).toBeUndefined();
    expect(publicStudy('s1', parseStudyConfig({})).llmRuns).toBe('server');
    expect(publicStudy('s1', parseStudyConfig({ llmRuns: 'browser' })).llmRuns).toBe('browser');
    expect(publicStudy('s1', parseStudyConfig({ llmRuns: 'auto' })).llmRuns).toBe('auto');
    expect(() => parseStudyConfig({ llmRuns: 'gpu' })).toThrow(/llmRuns/);
  });

  it('creating a study fills in an id and a completion code', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hillmind-config-'));
    const store = StudyStore.open(join(dir, 's.sqlite'));
    try {
      const { study, adminToken } = await createStudy(store, { teams: ['heuristic', 'random'] }, TEST_PLATFORM);
      expect(study.id).toMatch(/^study-[0-9a-f]{8}$/);
      expect(study.config.completion.code).toMatch(/^[0-9A-F]{8}$/);
      expect(store.checkAdminToken(study.id, adminToken)).toBe(true);
      expect(store.checkAdminToken(study.id, `${adminToken}x`)).toBe(false);
      await expect(createStudy(store, { id: study.id, teams: ['heuristic', 'random'] }, TEST_PLATFORM)).rejects.toThrow(/already exists/);
      const redirect = await createStudy(store, { teams: ['heuristic', 'random'], completion: { redirectUrl: 'https://example.org/done' } }, TEST_PLATFORM);
      expect(redirect.study.config.completion.code).toBeUndefined();
      expect(store.db.pragma('journal_mode')).toEqual([{ journal_mode: 'wal' }]);
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
