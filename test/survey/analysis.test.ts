import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StudyAnalysis, type StudyStore, analyzeStudy, forcedChoiceMinimum, forcedChoiceTestsLine, studyCsv, studyJson, studyReportFiles, studyReportHtml, studyReportMarkdown } from '../../src/survey';
import { SIGNED_RANK_MINIMUM, friedmanMinimum, wilcoxonSignedRank } from '../../src/stats';
import { REPORT_STYLE } from '../../src/report/page';
import { HUMANLIKE, publishedStudy } from './fixture';

let dir: string;
let store: StudyStore;
let analysis: StudyAnalysis;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hillmind-analysis-'));
  ({ store } = await publishedStudy(join(dir, 'studies.sqlite')));
  analysis = analyzeStudy(store.studyData('published'));
});

afterAll(() => {
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the study analysis on the published counts', () => {
  it('forced choice 9/5/1: chi-square 6.4, df 2, p 0.0408, Cramer V 0.462, exact p 0.0428', () => {
    const fc = analysis.forcedChoice;
    expect(fc.n).toBe(15);
    expect(fc.counts).toEqual([
      { team: 'bt', count: 1 },
      { team: 'llm', count: 9 },
      { team: 'flat', count: 5 },
    ]);
    expect(fc.chiSquare!.statistic).toBeCloseTo(6.4, 10);
    expect(fc.chiSquare!.df).toBe(2);
    expect(fc.chiSquare!.p).toBeCloseTo(Math.exp(-3.2), 10);
    expect(fc.chiSquare!.p).toBeCloseTo(0.0408, 4);
    expect(fc.chiSquare!.cramersV).toBeCloseTo(0.462, 3);
    expect(Math.abs(fc.exactP! - 0.0428)).toBeLessThan(1e-4);
    expect(fc.reasons).toHaveLength(15);
  });

  it('gives no forced-choice test the choices cannot support, and says why (one participant, then six)', () => {
    expect(forcedChoiceMinimum(3)).toEqual({ chiSquare: 15, exact: 4 }); // 3^(1-4) = 0.037 < 0.05 <= 3^(1-3)
    expect(forcedChoiceMinimum(2)).toEqual({ chiSquare: 10, exact: 6 }); // 2^-5 = 0.031
    // The Friedman test likewise: 3 teams need 3 people (6^-2 = 0.028 < 0.05 <= 1/6).
    expect([friedmanMinimum(2), friedmanMinimum(3), friedmanMinimum(4)]).toEqual([6, 3, 2]);
    const data = store.studyData('published');
    const firstOnes = (k: number) => {
      const who = new Set(data.participants.slice(0, k).map((p) => p.id));
      return analyzeStudy({ ...data, answers: data.answers.filter((a) => who.has(a.participantId)) }).forcedChoice;
    };
    const two = analyzeStudy({ ...data, answers: data.answers.filter((a) => data.participants.slice(0, 2).some((p) => p.id === a.participantId)) });
    expect(two.likert.every((l) => l.friedman === null && l.friedmanNeeds === 3)).toBe(true); // two people: no Friedman test
    const one = firstOnes(1);
    expect(one.n).toBe(1);
    expect([one.chiSquare, one.exactP]).toEqual([null, null]);
    expect(forcedChoiceTestsLine(one)).toBe(
      'n 1: no chi-square: it needs at least 15 participants (5 expected per team), and no exact test: with fewer than 4 participants among 3 teams no split of the choices could differ from chance at p < 0.05',
    );
    const six = firstOnes(6);
    expect(six.chiSquare).toBeNull();
    expect(six.exactP).not.toBeNull();
    expect(forcedChoiceTestsLine(six)).toMatch(/^n 6: exact p 0\.\d{4}; no chi-square: it needs at least 15 participants \(5 expected per team\)$/);
    expect(analysis.forcedChoice.withheld).toBeNull(); // 15 choices: both tests
    expect(forcedChoiceTestsLine(analysis.forcedChoice)).toMatch(/^n 15: chi-square 6\.40, df 2, p 0\.0408, Cramer's V 0\.462; exact p 0\.04\d\d$/);
  });

  it('holds back the pairwise Wilcoxon tests below 6 people who rated the pair differently, and says why in every report', async () => {
    // The exact test's smallest two-sided p with n differences is 2/2^n: 0.0625 at 5, 0.031 at 6.
    expect(SIGNED_RANK_MINIMUM).toBe(6);
    expect(wilcoxonSignedRank([1, 1, 1, 1, 1], [2, 3, 4, 5, 6]).p).toBeGreaterThan(0.05);
    const data = store.studyData('published');
    const first = new Set(data.participants.slice(0, 1).map((p) => p.id));
    const one = analyzeStudy({ ...data, answers: data.answers.filter((a) => first.has(a.participantId)) });
    const humanlike = one.likert.find((l) => l.item === 'humanlike')!;
    const btLlm = humanlike.pairwise.find((p) => p.a === 'bt' && p.b === 'llm')!;
    expect(btLlm).toMatchObject({ n: 1, statistic: null, p: null, pHolm: null, rankBiserial: null });
    expect(btLlm.withheld).toBe('needs at least 6 people who rated bt and llm differently, and there is 1: with fewer, no ratings could differ from chance at p < 0.05');
    expect(humanlike.friedmanWithheld).toBe('needs at least 3 people who rated every team, and there is 1: with fewer, no ratings could differ from chance at p < 0.05');
    const md = studyReportMarkdown(one);
    // No row of numbers for a test that was not run: no "p 1.0000" or "r 1.00" for one person.
    expect(md).not.toMatch(/\| humanlike \| bt vs llm \|/);
    expect(md).toContain('- humanlike, bt vs llm: needs at least 6 people who rated bt and llm differently, and there is 1');
    expect(md).toContain('- humanlike: needs at least 3 people who rated every team, and there is 1');
    expect(studyReportHtml(one)).toContain('<li>humanlike, bt vs llm: needs at least 6 people');
    const files = await studyReportFiles(one);
    expect(files.get('pairwise.csv')!.split('\r\n')[0]).toBe('item,a,b,n,v,p,p_holm,rank_biserial,held_back');
    // Holm's correction runs over the tests given: on all 15 people every pair is given.
    const all = analysis.likert.find((l) => l.item === 'humanlike')!;
    expect(all.pairwise.every((p) => p.withheld === null && p.p !== null)).toBe(true);
    expect(all.friedmanWithheld).toBeNull();
  });

  it('Likert per team: mean, median, Friedman over teams, Holm-corrected Wilcoxon pairs', () => {
    const human = analysis.likert.find((l) => l.item === 'humanlike')!;
    const llm = human.perTeam.find((t) => t.team === 'llm')!;
    expect(llm.n).toBe(15);
    expect(llm.mean).toBeCloseTo(2.8, 10);
    expect(llm.median).toBe(3);
    // Every human-likeness mean is below the neutral 3, as the study reported.
    expect(human.perTeam.every((t) => t.mean! < 3)).toBe(true);
    expect(human.friedman!.n).toBe(15);
    expect(human.friedman!.df).toBe(2);
    expect(human.friedman!.p).toBeLessThan(0.001);
    expect(human.pairwise.map((p) => `${p.a}-${p.b}`)).toEqual(['bt-llm', 'bt-flat', 'llm-flat']);
    for (const p of human.pairwise) expect(p.pHolm!).toBeGreaterThanOrEqual(p.p!);
    const btLlm = human.pairwise[0]!;
    expect(btLlm.n).toBe(15);
    // bt is rated below llm by every participant: all differences negative.
    expect(btLlm.statistic).toBe(0);
    expect(btLlm.rankBiserial).toBe(-1);
    expect(HUMANLIKE.bt!.every((v, i) => v < HUMANLIKE.llm![i]!)).toBe(true);
    expect(analysis.likert.map((l) => l.item)).toEqual(['challenge', 'skill', 'coordination', 'enjoyment', 'humanlike']);
  });

  it('AI win rates against the participants with Wilson intervals: 25.6%, 13.3%, 1.1% of 90', () => {
    const byTeam = Object.fromEntries(analysis.winRates.map((w) => [w.team, w]));
    expect(byTeam.llm!.episodes).toBe(90);
    expect(byTeam.llm!.aiWins).toBe(23);
    expect(byTeam.llm!.rate!.estimate).toBeCloseTo(0.2556, 4);
    expect(byTeam.bt!.rate!.estimate).toBeCloseTo(0.1333, 4);
    expect(byTeam.flat!.rate!.estimate).toBeCloseTo(0.0111, 4);
    // Wilson 95% for 23/90: [0.1767, 0.3543].
    expect(byTeam.llm!.rate!.lower).toBeCloseTo(0.1767, 3);
    expect(byTeam.llm!.rate!.upper).toBeCloseTo(0.3543, 3);
    expect(byTeam.flat!.rate!.lower).toBeGreaterThan(0);
  });

  it('order effects: every block position is rated by all 15 and tested', () => {
    const human = analysis.order.find((o) => o.item === 'humanlike')!;
    expect(human.positions.map((p) => p.n)).toEqual([15, 15, 15]);
    expect(human.positions.map((p) => p.label)).toEqual(['Team 1', 'Team 2', 'Team 3']);
    expect(human.friedman!.n).toBe(15);
    expect(analysis.orderWinRates.map((w) => w.episodes)).toEqual([90, 90, 90]);
    expect(analysis.participants).toEqual({ started: 15, completed: 15 });
    expect(analysis.background[0]!.counts.map((c) => c.count)).toEqual([3, 3, 3, 3, 3]);
  });

  it('reports in Markdown and HTML with plots, free text escaped', async () => {
    const md = studyReportMarkdown(analysis);
    expect(md).toMatch(/χ² = 6\.400, df = 2, p = 0\.0408; Cramér's V = 0\.462; exact multinomial p = 0\.0429/); // 0.04285, rounded
    expect(md).toContain('| llm | 9 | 60.0% |');
    expect(md).toContain('It &lt;script&gt;alert(1)&lt;/script&gt; rushed \\| stood still');
    expect(md).not.toContain('<script>');
    const html = studyReportHtml(analysis);
    expect(html).toContain(`<style>\n${REPORT_STYLE}\n`); // the one report page, as tournaments write it
    // Each plot beside the page, with its data and its Vega-Lite spec; every table as CSV.
    const files = await studyReportFiles(analysis);
    for (const plot of ['forced-choice', 'likert', 'win-rates', 'order']) {
      expect(html).toContain(`<img src="${plot}.svg"`);
      expect(md).toContain(`(${plot}.svg)`);
      expect(files.get(`${plot}.svg`)).toContain('role-axis');
      expect(JSON.parse(files.get(`${plot}.vl.json`)!).data.url).toBe(`${plot}.csv`);
    }
    expect(files.get('likert.svg')).toContain('mean rating');
    expect(files.get('likert.svg')).toContain('role-legend');
    expect(files.get('win-rates.csv')!.split('\r\n')[0]).toBe('team,episodes,ai_wins,draws,participant_wins,rate,lower,upper');
    expect(files.get('win-rates.csv')).toMatch(/\r\nllm,90,23,/);
    expect(files.get('likert.csv')!.trim().split('\r\n')).toHaveLength(1 + 5 * 3);
    for (const table of ['friedman.csv', 'pairwise.csv', 'order-win-rates.csv', 'reasons.csv', 'open-answers.csv', 'background.csv']) expect(files.has(table)).toBe(true);
    // Free text is data in CSV: exactly as typed.
    expect(files.get('open-answers.csv')).toContain('It <script>alert(1)</script> rushed | stood still');
    expect(files.get('report.html')).toBe(html);
    expect(html).toContain('It &lt;script&gt;alert(1)&lt;/script&gt; rushed | stood still');
    expect(html).not.toContain('<script>');
  });

  it('exports CSV tables and JSON', () => {
    const data = store.studyData('published');
    const answers = studyCsv(data, 'answers').trim().split('\r\n');
    // 15 participants x (3 blocks x (5 Likert + 1 open) + choice + reason + 2 background).
    expect(answers).toHaveLength(1 + 15 * (18 + 4));
    expect(answers.some((l) => l.includes('It <script>alert(1)</script> rushed | stood still'))).toBe(true);
    const participants = studyCsv(data, 'participants').trim().split('\r\n');
    expect(participants).toHaveLength(16);
    expect(participants[1]).toContain('pid-1');
    expect(studyCsv(data, 'episodes').trim().split('\r\n')).toHaveLength(1 + 270);
    // The agents people played are ids, named so (a bare "human_agents" of 0 read like a count).
    const episodes = studyCsv(data, 'episodes').split('\r\n');
    expect(episodes[0]).toContain(',human_agent_ids,agent_controllers,');
    expect(episodes[0]).not.toContain(',human_agents,');
    const doc = JSON.parse(studyJson(store, data)) as { answers: unknown[]; episodes: { replay?: unknown }[] };
    expect(doc.answers).toHaveLength(15 * 22);
    expect(doc.episodes[0]!.replay).toBeUndefined();
    expect((JSON.parse(studyJson(store, data, { replays: true })) as { episodes: { replay?: unknown }[] }).episodes[0]!.replay).toEqual({});
  });

  it('neutralises spreadsheet formulas in exported free text only', () => {
    const data = store.studyData('published');
    const doctored = { ...data, answers: [{ ...data.answers[0]!, kind: 'open' as const, valueText: '=HYPERLINK("x")', valueNum: -1 }] };
    const line = studyCsv(doctored, 'answers').trim().split('\r\n')[1]!;
    expect(line).toContain(`"'=HYPERLINK(""x"")"`);
    expect(line).toContain(',-1,');
  });
});
