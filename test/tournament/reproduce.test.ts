/**
 * The reproduction end to end on a small scale, against the OpenAI-compatible test server
 * (the real model runs in the CI's local-model tests): every row played with sides swapped,
 * the report and its JSON beside the study's figures, and a second run resumes instead of
 * playing again.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRecords } from '../../src/tournament/records';
import { RECORDS_DIR, publishReproduction } from '../../src/tournament/publish';
import { type MatchupResult, type Reproduction, STUDY, TARGETS, allRows, ablationRows, agreement, cacheCheck, rankPlans, reproduce, reproductionMarkdown, rowPlatform, targetFigure } from '../../src/tournament/reproduce';
import { decisiveShare } from '../../src/stats/wilson';
import { FakeOpenAiServer } from '../llm/fakeOpenAiServer';
import type { ServerLlmSettings } from '../../src/llm';
import { createOpenAiClient, nodeLlmAccess } from '../../src/llm/node';
import { ModelLibrary } from '../../src/skills';
import { nodeModelSource } from '../../src/skills/nodeModels';
import { createPlatform } from '../../src/teams';
import { readPlatformSpec } from '../../src/teams/nodePlatform';
import { tournamentSpec } from '../../src/tournament/run';

let fake: FakeOpenAiServer;
const out = mkdtempSync(join(tmpdir(), 'hillmind-reproduce-'));
const shelf = mkdtempSync(join(tmpdir(), 'hillmind-reproduce-shelf-'));
beforeAll(async () => {
  fake = await FakeOpenAiServer.start();
});
afterAll(async () => {
  await fake.close();
  rmSync(out, { recursive: true, force: true });
  rmSync(shelf, { recursive: true, force: true });
});

describe('npm run reproduce', () => {
  it('plays the study matchups and the ablations, reports them beside the study, and resumes', async () => {
    const env = { OPENAI_BASE_URL: fake.url, LLM_MODEL: 'fake-gemma', LLM_CACHE: 'off' };
    // One platform for the whole reproduction: the coordinator opens its model once, for every row.
    const spec = tournamentSpec(readPlatformSpec(env, { llm: { timing: { kind: 'lockstep' } } }));
    let opened = 0;
    const createClient = (settings: ServerLlmSettings) => {
      opened++;
      return createOpenAiClient(settings);
    };
    const platform = { ...createPlatform({ models: new ModelLibrary(nodeModelSource(spec.models)), llm: nodeLlmAccess({ spec: spec.llm, createClient }) }), spec };
    const options = {
      episodes: 2,
      ablationEpisodes: 1,
      out,
      platform,
      workers: 1,
      ablations: true,
      plans: ['fixed:skills=secure+secure', 'fixed:skills=navigate+retreat'],
      command: 'npm run reproduce -- --episodes 2',
      commit: 'abc123',
      llm: { ok: true as const, model: 'fake-gemma', provider: 'test', settings: { format: 'compact' } as never },
    };
    // While the run goes on, the report holds the rows played so far and names the rest.
    let interim: { matchups: { name: string }[]; plans: { rows: { second: string }[] }; pending?: string[] } | null = null;
    const reports: Reproduction[] = [];
    const first = await reproduce({
      ...options,
      reportEvery: 1,
      onReport: (r) => reports.push(r),
      onResumed(_done: number, _total: number, row: string) {
        if (row === 'bt vs flat') interim = JSON.parse(readFileSync(join(out, 'reproduction.json'), 'utf8'));
      },
    });
    // Within a row, every `reportEvery` episodes the report holds the row in play with its figures so far.
    const midRow = reports.find((r) => r.inPlay?.row === 'bt vs llm');
    expect(midRow?.inPlay).toEqual({ row: 'bt vs llm', episodes: 1, of: 2 });
    expect(midRow!.matchups.map((m) => [m.name, m.episodes, m.firstWins + m.secondWins + m.draws])).toEqual([['bt vs llm', 1, 1]]);
    expect(midRow!.pending).not.toContain('bt vs llm');
    expect(midRow!.pending).toContain('bt vs flat');
    expect(reproductionMarkdown(midRow!)).toMatch(/\| llm vs bt: llm's share of the decisive games \| at least 55\.0% \| .* \| 1 \| in play \(1 of 2\) \|/);
    expect(reproductionMarkdown(midRow!)).toContain('**Not finished:** bt vs llm is in play, and its figures here are those of its first 1 of 2 episodes. Still to play: bt vs flat;');
    // Rows of one episode have no report within them; the last report is the whole.
    expect(reports.filter((r) => r.inPlay).map((r) => r.inPlay!.row)).toEqual(['planner vs bt', 'planner vs flat', 'bt vs llm', 'bt vs flat', 'llm vs flat', 'bt vs the best constant plan (' + first.plans.best + ')', 'llm vs the best constant plan (' + first.plans.best + ')']);
    expect(reports.at(-1)).toEqual(first);
    // The plans and the planner play first (no language model): they are in the report before the study's rows.
    expect(interim!.matchups.map((m) => m.name)).toEqual(['bt vs llm']);
    expect((interim as unknown as Reproduction).planner.map((m) => m.name)).toEqual(['planner vs bt', 'planner vs flat']);
    expect(interim!.plans.rows.map((m) => m.second)).toEqual(['fixed:skills=secure+secure', 'fixed:skills=navigate+retreat']);
    expect(interim!.pending).toEqual([
      'bt vs flat',
      'llm vs flat',
      'bt vs the best constant plan (to be found)',
      'llm vs the best constant plan (to be found)',
      ...ablationRows(false).map((r) => r.name),
    ]);
    expect(first.pending).toBeUndefined();
    expect(first.matchups.map((m) => [m.first, m.second])).toEqual(STUDY.matchups.map((m) => [m.first, m.second]));
    // A server's model has no adapter to take away: no untuned row, and the format row asks the model itself.
    expect(first.ablations.map((m) => [m.first, m.second])).toEqual(ablationRows(false).map((r) => [r.first, r.second]));
    expect(first.ablations.map((m) => m.second)).toContain('llm:format=json');
    expect(first.planner.map((m) => [m.kind, m.first, m.second, m.episodes])).toEqual([
      ['planner', 'planner', 'bt', 2],
      ['planner', 'planner', 'flat', 2],
    ]);
    for (const m of [...first.matchups, ...first.planner]) {
      expect(m.episodes).toBe(2);
      expect(m.firstWins + m.secondWins + m.draws).toBe(2);
    }
    // Each plan played the tree; the best then played the tree and llm over the study's episodes.
    expect(first.plans.rows.map((m) => [m.first, m.second, m.episodes])).toEqual([
      ['bt', 'fixed:skills=secure+secure', 1],
      ['bt', 'fixed:skills=navigate+retreat', 1],
    ]);
    expect(first.plans.best).toBe(rankPlans(first.plans.rows)[0]!.second);
    expect(first.plans.againstBest.map((m) => [m.kind, m.first, m.second, m.episodes])).toEqual([
      ['best plan', 'bt', first.plans.best, 2],
      ['best plan', 'llm', first.plans.best, 2],
    ]);
    // The tree meets the best plan in games of their own, not those that ranked the plan.
    const seeds = (dir: string) => readFileSync(join(out, 'runs', dir, 'episodes.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { seed: number }).seed);
    const plansDir = `plans/bt--vs--${first.plans.best!.replace(':', '_')}`;
    const bestDir = `best-plan/bt--vs--${first.plans.best!.replace(':', '_')}`;
    expect(seeds(bestDir).filter((seed) => seeds(plansDir).includes(seed))).toEqual([]);
    for (const m of first.ablations) {
      expect(m.episodes).toBe(1);
      expect(m.firstWins + m.secondWins + m.draws).toBe(1);
    }
    expect(first.matchups[0]!.study).toMatchObject({ firstWins: 0.515, p: 0.103 });
    expect(first.agents.map((t) => t.team)).toEqual(['bt', 'llm', 'flat']);
    expect(first.agents.every((t) => t.agentEpisodes === 8)).toBe(true); // 2 matchups x 2 episodes x 2 agents
    expect(first.llm).toMatchObject({ model: 'fake-gemma', cacheHitRate: 0 });
    expect(fake.calls.length).toBeGreaterThan(0);
    expect(opened).toBe(1);
    // Each row's sides, first team then second; the llm side's decisions are the calls the
    // model heard, less one reachability probe per llm row (the cache is off).
    const rows = [...first.matchups, ...first.planner, ...first.plans.rows, ...first.plans.againstBest, ...first.ablations];
    expect(rows.map((m) => m.sides!.map((t) => t.team))).toEqual(rows.map((m) => [m.first, m.second]));
    expect(first.matchups[0]!.sides![0]!.llm).toEqual({ requests: 0, cacheHits: 0, failed: 0, rules: { choices: 0, agreed: 0, heldOut: { choices: 0, agreed: 0 } } });
    // The llm side's answers were counted against the tree's rules (the fake model answers carefully).
    const inPlay = first.matchups[0]!.sides![1]!.llm.rules;
    expect(inPlay.choices).toBeGreaterThan(0);
    expect(inPlay.agreed / inPlay.choices).toBeGreaterThan(0.8);
    const llmSideRows = rows.filter((m) => m.first.startsWith('llm') || m.second.startsWith('llm')).length;
    const decided = rows.flatMap((m) => m.sides!).reduce((sum, t) => sum + t.llm.requests - t.llm.cacheHits, 0);
    expect(decided).toBe(fake.calls.length - llmSideRows);
    expect(first.matchups[0]!.sides![1]!.agentEpisodes).toBe(4);

    const json = JSON.parse(readFileSync(join(out, 'reproduction.json'), 'utf8')) as typeof first;
    expect(json).toMatchObject({ format: 'hillmind-reproduction', command: 'npm run reproduce -- --episodes 2', llm: { model: 'fake-gemma', provider: 'test' } });
    expect(json.matchups[1]).toMatchObject({ first: 'bt', second: 'flat', episodes: 2 });
    const md = readFileSync(join(out, 'reproduction.md'), 'utf8');
    expect(md).toContain('| bt vs llm | 2 |');
    expect(md).toContain('51.5% / 46.4% / 2.1% (p=0.103)');
    expect(md).toContain('## Ablations the study lacked');
    expect(md).toContain('## The best constant plan');
    expect(md).toContain(`Against the best plan, \`${first.plans.best}\``);
    expect(md).toMatch(/\| llm vs the best constant plan \(fixed:skills=[a-z+]+\) \| 2 \| .* \| at least 65\.0% \|/);
    expect(md).toContain('## The planner');
    expect(md).toMatch(/\| planner vs bt \| 2 \| /);
    // Every target is read from its row, and judged.
    expect(md).toContain('## Targets');
    for (const target of TARGETS) expect(md).toMatch(new RegExp(`\\| ${target.what.replace(/[()]/g, '\\$&')} \\| at least [\\d.]+% \\| .* \\| 2 \\| (met|met \\(the whole interval\\)|missed|-) \\|`));
    expect(md).toContain('2 episodes per matchup and 1 per ablation');
    const matchupsSvg = readFileSync(join(out, 'matchups.svg'), 'utf8');
    expect(matchupsSvg).toMatch(/^<svg/);
    expect(matchupsSvg).toContain("first team's share of episodes won");
    expect(matchupsSvg).toContain('role-legend');
    // Ours and the study's first-team wins per study row, as the plot's data.
    const matchupsCsv = readFileSync(join(out, 'matchups.csv'), 'utf8').trim().split('\r\n');
    expect(matchupsCsv[0]).toBe('matchup,source,episodes,first_win_share,lower,upper');
    expect(matchupsCsv).toContain('bt vs llm,the study,,0.515,,');
    expect(JSON.parse(readFileSync(join(out, 'matchups.vl.json'), 'utf8')).data.url).toBe('matchups.csv');
    // The skill plot has a bar per skill of bt and llm, and the study's where it gives one.
    const skills = readFileSync(join(out, 'skills.csv'), 'utf8');
    expect(skills.match(/,ours,/g)).toHaveLength(8);
    expect(skills.match(/,the study,/g)).toHaveLength(4);
    expect(readFileSync(join(out, 'skills.svg'), 'utf8')).toContain('share of skill time');
    // Every table as data: the rows (study and ablations), the agents, each row's sides.
    expect(readFileSync(join(out, 'rows.csv'), 'utf8').trim().split('\r\n')).toHaveLength(1 + rows.length);
    expect(readFileSync(join(out, 'rows.csv'), 'utf8')).toContain(`bt vs fixed:skills=secure+secure,plan,bt,fixed:skills=secure+secure,1,`);
    expect(readFileSync(join(out, 'agents.csv'), 'utf8')).toMatch(/\r\nbt,8,/);
    expect(readFileSync(join(out, 'sides.csv'), 'utf8').trim().split('\r\n')).toHaveLength(1 + 2 * rows.length);
    expect(md).toContain('![skill use beside the study](skills.svg)');
    expect(md).toContain('(commit abc123)');
    expect(md).toContain('## How each side played');
    expect(md).toMatch(/\| bt vs llm \| bt \| .* \| - \| - \| - \|\n\| bt vs llm \| llm \| .* \| [\d,]+ \| 0\.0% \| 0 \|/);

    // Run again: every episode is on disk, nothing is played (the model hears only each
    // row's one reachability probe), the figures are the same.
    const calls = fake.calls.length;
    // A cache-off sample of the bt vs llm row: the row's own episodes, one ended otherwise.
    const rowRecords = readRecords(join(out, 'runs', 'bt--vs--llm', 'episodes.jsonl'));
    const sample = join(out, 'cache-off-sample');
    mkdirSync(sample);
    writeFileSync(join(sample, 'episodes.jsonl'), rowRecords.map((r, i) => JSON.stringify(i === 1 ? { ...r, hash: '0000000000000000' } : r)).join('\n') + '\n');
    const again = await reproduce({ ...options, cacheSample: sample });
    expect(again.cacheCheck).toMatchObject({ row: 'bt vs llm', sampled: 2, sampledWithCacheHits: 0, compared: 2, same: 1 });
    expect(again.cacheCheck!.different.map((d) => d.key)).toEqual([rowRecords[1]!.key]);
    expect(reproductionMarkdown(again)).toContain(`## The decision cache`);
    expect(reproductionMarkdown(again)).toContain(`1 of the 2 that the row holds ended in the same final state as the row's; these did not`);
    writeFileSync(join(sample, 'episodes.jsonl'), rowRecords.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const verdict = () => reproductionMarkdown({ ...again, cacheCheck: cacheCheck(sample, rowRecords) });
    expect(verdict()).toContain('All 2 that the row holds ended in the same final state');
    // Each way a folder is no sample of the row is said: a cache hit, another matchup, another seed, nothing played yet.
    const writeSample = (records: readonly object[]) => writeFileSync(join(sample, 'episodes.jsonl'), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    writeSample(rowRecords.map((r, i) => (i === 0 ? { ...r, llm: { red: { cacheHits: 2 } } } : r)));
    expect(verdict()).toContain('It is no cache-off sample: the cache answered decisions in 1 of its 2 episodes');
    writeSample(rowRecords.map((r) => ({ ...r, key: r.key.replace('bt|llm|', 'llm|bt|') })));
    expect(verdict()).toContain("It holds no episode of the row's matchup yet (played as `--teams bt,llm`, the row's seed 1)");
    writeSample(rowRecords.map((r) => ({ ...r, seed: r.seed + 1 })));
    expect(verdict()).toContain('2 of its episodes have other seeds than the row\'s');
    writeSample(rowRecords.map((r) => ({ ...r, key: r.key.replace(/\d+$/, (i) => String(Number(i) + 50)) })));
    expect(verdict()).toContain('None of its 2 episodes is in the row yet.');
    const llmRows = rows.filter((m) => m.first.startsWith('llm') || m.second.startsWith('llm')).length;
    expect(fake.calls.length - calls).toBe(llmRows);
    expect(again.matchups).toEqual(first.matchups);

    // Published beside the docs and unpacked elsewhere (docs/reproducing.md, "Its records"),
    // the records are the run: checked against this checkout, nothing is played again.
    const docs = join(shelf, 'docs');
    publishReproduction(out, docs);
    expect(readFileSync(join(docs, 'reproduction.md'), 'utf8')).toContain(`[rows.csv](${RECORDS_DIR}/rows.csv)`);
    const unpacked = join(shelf, 'unpacked');
    cpSync(join(docs, RECORDS_DIR), unpacked, { recursive: true });
    const packed = readdirSync(unpacked, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.jsonl.gz'));
    expect(packed).toHaveLength(rows.length);
    for (const file of packed) writeFileSync(join(unpacked, file.replace(/\.gz$/, '')), gunzipSync(readFileSync(join(unpacked, file))));
    const beforeUnpacked = fake.calls.length;
    const fromDocs = await reproduce({ ...options, out: unpacked });
    expect(fake.calls.length - beforeUnpacked).toBe(llmRows);
    expect(allRows(fromDocs)).toEqual(allRows(first));
    expect(opened).toBe(1);
    await platform.close();
    // Fifteen small tournaments, each starting its worker thread.
  }, 180_000);
});

describe('agreement with the study', () => {
  const interval = (estimate: number, half: number) => ({ estimate, lower: estimate - half, upper: estimate + half });
  const result = (first: number, second: number, draws: number, half: number): MatchupResult => ({
    name: 'bt vs flat',
    kind: 'study',
    first: 'bt',
    second: 'flat',
    episodes: 100,
    firstWins: Math.round(first * 100),
    secondWins: Math.round(second * 100),
    draws: Math.round(draws * 100),
    aRate: interval(first, half),
    bRate: interval(second, half),
    drawRate: interval(draws, half),
    pDecisive: null,
    pTwoProportion: null,
    study: STUDY.matchups[1],
  });

  it('agrees when every study share lies in our interval; else names the shares outside and whether the winner is the same', () => {
    expect(agreement(result(0.7, 0.18, 0.12, 0.05))).toBe('agrees');
    expect(agreement(result(0.55, 0.1, 0.35, 0.05))).toBe("same winner; the study's first wins 72.2% above ours, second wins 16.8% above ours, draws 11.0% below ours");
    expect(agreement(result(0.2, 0.7, 0.1, 0.05))).toBe("differs; the study's first wins 72.2% above ours, second wins 16.8% below ours");
    expect(agreement({ ...result(0.7, 0.18, 0.12, 0.05), study: undefined })).toBe('-');
  });
});

/** A row's result from its counts, each rate its share of the episodes (no interval). */
function matchupRow(kind: MatchupResult['kind'], first: string, second: string, firstWins: number, secondWins: number, draws: number): MatchupResult {
  const episodes = firstWins + secondWins + draws;
  const share = (n: number) => ({ estimate: n / episodes, lower: n / episodes, upper: n / episodes });
  return { name: `${first} vs ${second}`, kind, first, second, episodes, firstWins, secondWins, draws, aRate: share(firstWins), bRate: share(secondWins), drawRate: share(draws), pDecisive: null, pTwoProportion: null };
}

describe('the best constant plan', () => {
  const row = (second: string, firstWins: number, secondWins: number, draws: number) => matchupRow('plan', 'bt', second, firstWins, secondWins, draws);
  it('ranks the plans by points against the tree (a draw half a win), then wins, then their order', () => {
    const plans = [row('fixed:skills=a+a', 50, 20, 30), row('fixed:skills=b+b', 40, 25, 35), row('fixed:skills=c+c', 45, 30, 25), row('fixed:skills=d+d', 40, 30, 30)];
    // Points: a 35, b 42.5, c 42.5 (more wins than b), d 45.
    expect(rankPlans(plans).map((m) => m.second)).toEqual(['fixed:skills=d+d', 'fixed:skills=c+c', 'fixed:skills=b+b', 'fixed:skills=a+a']);
    expect(rankPlans([plans[1]!, { ...plans[1]!, second: 'fixed:skills=e+e' }])[0]!.second).toBe('fixed:skills=b+b');
  });

  it("gives the first team's share of the decisive games with its Wilson interval, none without decisive games", () => {
    const share = decisiveShare(55, 45)!;
    expect(share.estimate).toBeCloseTo(0.55);
    expect(share.lower).toBeLessThan(0.55);
    expect(share.upper).toBeGreaterThan(0.55);
    expect(decisiveShare(0, 0)).toBeNull();
  });

  it('plays the format ablation on the model alone where the local model runs with its adapter, and adds the untuned row and each other adapter against its own', () => {
    const tuned = ablationRows(true);
    expect(tuned.find((r) => r.name.startsWith('compact vs json'))).toEqual({ name: 'compact vs json answers (the model alone)', first: 'llm:adapter=none:format=compact', second: 'llm:adapter=none:format=json' });
    expect(tuned.find((r) => r.second === 'llm:adapter=none')).toMatchObject({ first: 'llm', twoEngines: true });
    expect(ablationRows(true, ['rules']).find((r) => r.first === 'llm:adapter=rules')).toEqual({ name: 'the rules adapter vs the default one', first: 'llm:adapter=rules', second: 'llm', twoEngines: true });
    // The slowest row plays last, so every other figure is in the report before it.
    expect(ablationRows(true, ['rules']).at(-1)!.name).toBe('compact vs json answers (the model alone)');
    expect(ablationRows(false, ['rules']).some((r) => r.first.includes('adapter') || r.second.includes('adapter'))).toBe(false);
  });

  it('plays the rows whose sides run two local engines, and only those, on the platform sized for two', () => {
    const rows = ablationRows(true, ['rules']);
    // The model alone in two formats is one engine; an adapter against the model alone or another adapter is two.
    expect(rows.filter((r) => r.twoEngines).map((r) => [r.first, r.second])).toEqual([
      ['llm', 'llm:adapter=none'],
      ['llm:adapter=rules', 'llm'],
    ]);
    const platform = { name: 'one engine' } as never;
    const twoEnginePlatform = { name: 'two engines' } as never;
    expect(rows.map((r) => rowPlatform(r, { platform, twoEnginePlatform }))).toEqual(rows.map((r) => (r.twoEngines ? twoEnginePlatform : platform)));
    expect(rows.map((r) => rowPlatform(r, { platform }))).toEqual(rows.map(() => platform));
  });
});

describe('the targets', () => {
  const row = (first: string, second: string, firstWins: number, secondWins: number, draws: number) => matchupRow('study', first, second, firstWins, secondWins, draws);
  const [planner, llmVsBt, llmVsFlat] = TARGETS;
  it("reads a side's share of the decisive games, or of all games, from the side the target names", () => {
    // bt vs llm: llm is second; 30 bt wins, 45 llm wins, 25 draws: llm has 60% of the decisive games.
    expect(targetFigure(llmVsBt!, row('bt', 'llm', 30, 45, 25))!.estimate).toBeCloseTo(0.6);
    expect(targetFigure(planner!, row('planner', 'bt', 70, 10, 20))!.estimate).toBeCloseTo(0.875);
    // llm vs flat counts wins of every game: 60 of 100 with 20 draws is 60%, not 75%.
    expect(targetFigure(llmVsFlat!, row('llm', 'flat', 60, 20, 20))!.estimate).toBeCloseTo(0.6);
    expect(targetFigure(llmVsBt!, row('bt', 'llm', 0, 0, 10))).toBeNull();
  });
  it('finds each row in a report', () => {
    const report = {
      matchups: [row('bt', 'llm', 1, 2, 0), row('bt', 'flat', 1, 0, 0), row('llm', 'flat', 2, 0, 0)],
      planner: [row('planner', 'bt', 3, 0, 0), row('planner', 'flat', 1, 0, 0)],
      plans: { episodesPerPlan: 1, rows: [], againstBest: [row('bt', 'fixed:skills=secure+secure', 1, 0, 0), row('llm', 'fixed:skills=secure+secure', 0, 1, 0)] },
    } as unknown as Reproduction;
    expect(TARGETS.map((t) => t.row(report)?.name)).toEqual(['planner vs bt', 'bt vs llm', 'llm vs flat', 'llm vs fixed:skills=secure+secure']);
  });
});
