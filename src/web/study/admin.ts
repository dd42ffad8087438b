/**
 * The researcher's progress page at /study/<id>/admin: behind the study's admin token
 * (typed in, or passed once as #token=... and then dropped from the address bar), it shows
 * who is where, the running counts, the episodes whose replay did not verify (with why and
 * where their re-simulation parted), the forced choice so far, the Likert ratings per team
 * (means, medians and the Friedman test the analysis computes), every free-text answer (as
 * text), export downloads, and how often the server's decision cache answered the llm
 * team's decisions (GET /api/llm/status). It refreshes itself every 10 seconds.
 */
import { type ForcedChoiceAnalysis, forcedChoiceTestsLine } from '../../survey/analysis';
import { num, pct } from '../../report/format';
import { countOf } from '../../sim/words';
import { el } from '../dom';
import { AdminApi, ApiError } from './api';
import { cacheLine, fetchLlmStatus } from '../../llm/proxyClient';

interface Progress {
  readonly study: { id: string; kind: string; title: string; status: 'open' | 'closed'; createdAt: string; config: { teams: string[]; episodesPerBlock: number } };
  readonly counts: Record<string, number>;
  readonly participants: readonly {
    number: number;
    external: Record<string, string>;
    blocks: { team: string; label: string; colour: string }[];
    step: { kind: string; block?: number; episode?: number; clip?: number };
    episodes: number;
    restarts?: number;
    startedAt: string;
    updatedAt: string;
    completedAt: string | null;
  }[];
  readonly unverified?: readonly {
    participant?: number;
    block: number;
    episode: number;
    opponent: string;
    outcome: string;
    ticks: number;
    problem: string | null;
    divergedByTick: number | null;
    createdAt: string;
  }[];
  readonly freeText: readonly { participant?: number; team: string | null; label: string | null; item: string; text: string; createdAt: string }[];
}

/** What the page reads of the analysis (src/survey/analysis.ts's StudyAnalysis). */
interface Analysis {
  readonly forcedChoice: Pick<ForcedChoiceAnalysis, 'n' | 'counts' | 'chiSquare' | 'exactP' | 'withheld'>;
  readonly likert: readonly {
    item: string;
    prompt: string;
    points: number;
    perTeam: { team: string; n: number; mean: number | null; median: number | null }[];
    friedman: { n: number; statistic: number; df: number; p: number; kendallW: number } | null;
    /** Why the Friedman test is held back (null when it is given). */
    friedmanWithheld: string | null;
  }[];
  readonly winRates: readonly { team: string; episodes: number; aiWins: number; rate: { estimate: number; lower: number; upper: number } | null }[];
}

const TOKEN_KEY = (id: string) => `hillmind.admin.${id}`;

function table(header: string[], rows: (string | Node)[][], id: string): HTMLElement {
  return el(
    'table',
    { class: 'admin-table', id },
    el('thead', {}, el('tr', {}, ...header.map((h) => el('th', { text: h })))),
    el('tbody', {}, ...rows.map((r) => el('tr', {}, ...r.map((c) => (typeof c === 'string' ? el('td', { text: c }) : el('td', {}, c)))))),
  );
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '');

/** One row per Likert item: mean and median per team (with n), and the Friedman test over teams. */
function likertTable(likert: Analysis['likert'], teams: readonly string[]): HTMLElement {
  const rows = likert.map((item) => [
    item.item,
    ...teams.map((team) => {
      const t = item.perTeam.find((p) => p.team === team);
      return t && t.n > 0 ? `${num(t.mean)} / ${num(t.median, 1)} (n ${t.n})` : '-';
    }),
    item.friedman
      ? `chi-square ${num(item.friedman.statistic)}, df ${item.friedman.df}, p ${num(item.friedman.p, 4)}, W ${num(item.friedman.kendallW)} (n ${item.friedman.n})`
      : `held back: ${item.friedmanWithheld}`,
  ]);
  return table(['item', ...teams.map((t) => `${t}: mean / median`), 'Friedman over teams'], rows, 'admin-likert');
}
/**
 * The running counts. Judgements are what observers make, so only an observe study shows
 * them (a play study would always read "0 judgements").
 */
export function countsLine(kind: string, counts: Readonly<Record<string, number>>): string {
  const c = (key: string) => counts[key] ?? 0;
  return [
    `${c('participants')} started`,
    `${c('completed')} completed`,
    countOf(c('episodes'), 'episode'),
    countOf(c('restarts'), 'restart'),
    `${c('unverified')} not verified`,
    countOf(c('answers'), 'answer'),
    ...(kind === 'observe' ? [countOf(c('judgements'), 'judgement')] : []),
  ].join(' · ');
}

function stepText(step: Progress['participants'][number]['step']): string {
  switch (step.kind) {
    case 'play':
      return `playing block ${(step.block ?? 0) + 1}, episode ${(step.episode ?? 0) + 1}`;
    case 'rate':
      return `rating block ${(step.block ?? 0) + 1}`;
    case 'clip':
      return `clip ${(step.clip ?? 0) + 1}`;
    default:
      return step.kind;
  }
}

export function adminPage(root: HTMLElement, studyId: string): void {
  document.title = `Progress · ${studyId}`;
  const fromHash = new URLSearchParams(location.hash.slice(1)).get('token');
  if (fromHash) {
    try {
      sessionStorage.setItem(TOKEN_KEY(studyId), fromHash);
    } catch {
      // kept in the field only
    }
    history.replaceState(null, '', location.pathname + location.search);
  }
  let saved = fromHash ?? '';
  try {
    saved ||= sessionStorage.getItem(TOKEN_KEY(studyId)) ?? '';
  } catch {
    // no storage
  }
  const tokenInput = el('input', { type: 'password', id: 'admin-token', placeholder: 'admin token', autocomplete: 'off', value: saved });
  const load = el('button', { type: 'button', class: 'primary', id: 'admin-load', text: 'Show progress' });
  const error = el('p', { class: 'form-error', id: 'admin-error', role: 'alert', hidden: true });
  const content = el('div', { id: 'admin-content' });
  root.append(
    el('header', { class: 'topbar' }, el('div', { class: 'brand' }, el('span', { class: 'logo', text: 'Hillmind' }), el('span', { class: 'tagline', text: `Study progress · ${studyId}` }))),
    el('section', { class: 'study-card admin-login' }, el('label', { class: 'field', for: 'admin-token' }, el('span', { text: 'Admin token (printed by npm run survey -- create)' }), tokenInput), load, error),
    content,
  );

  let timer: ReturnType<typeof setInterval> | null = null;
  const fail = (text: string) => {
    error.textContent = text;
    error.hidden = false;
  };

  const refresh = async (api: AdminApi) => {
    let progress: Progress;
    let analysis: Analysis;
    // The server's model status never fails (it says why there is none): the cache's line.
    const llm = fetchLlmStatus();
    try {
      [progress, analysis] = await Promise.all([api.progress<Progress>(), api.analysis<Analysis>()]);
    } catch (err) {
      if (timer) clearInterval(timer);
      timer = null;
      return fail(err instanceof ApiError && err.status === 401 ? 'That is not this study\'s admin token.' : (err as Error).message);
    }
    error.hidden = true;
    try {
      sessionStorage.setItem(TOKEN_KEY(studyId), tokenInput.value);
    } catch {
      // not remembered
    }
    const s = progress.study;
    const toggle = el('button', { type: 'button', id: 'admin-status', text: s.status === 'open' ? 'Close to new participants' : 'Reopen' });
    toggle.addEventListener('click', () => void api.setStatus(s.status === 'open' ? 'closed' : 'open').then(() => refresh(api), (e: Error) => fail(e.message)));
    const downloads = el('div', { class: 'actions left' });
    const exports: [string, string, string][] = [
      ['JSON', 'format=json', `${s.id}.json`],
      ['JSON with replays', 'format=json&replays=1', `${s.id}-replays.json`],
      ...(['answers', 'participants', 'episodes', 'judgements', 'attempts'] as const).map((t): [string, string, string] => [`CSV ${t}`, `format=csv&table=${t}`, `${s.id}-${t}.csv`]),
    ];
    for (const [label, query, file] of exports) {
      const b = el('button', { type: 'button', class: 'download', 'data-export': query, text: label });
      b.addEventListener('click', () => void api.download(query, file).catch((e: Error) => fail(e.message)));
      downloads.append(b);
    }
    const fc = analysis.forcedChoice;
    content.replaceChildren(
      el(
        'section',
        { class: 'study-card wide' },
        el('h1', { text: s.title }),
        el('p', { id: 'admin-summary', text: `${s.kind} study ${s.id} · ${s.status} · teams ${s.config.teams.join(', ')} · ${countOf(s.config.episodesPerBlock, 'episode')} per block · created ${when(s.createdAt)}` }),
        el(
          'p',
          { id: 'admin-counts', class: 'mono' },
          countsLine(s.kind, progress.counts),
        ),
        el('p', { id: 'admin-llm-cache', class: 'mono', text: cacheLine(await llm) }),
        el('div', { class: 'actions left' }, toggle),
        el('h2', { text: 'Forced choice so far' }),
        table(['team', 'chosen'], fc.counts.map((c) => [c.team, String(c.count)]), 'admin-choice'),
        el('p', { id: 'admin-choice-tests', text: `${forcedChoiceTestsLine(fc)}.` }),
        ...(s.kind === 'play'
          ? [
              el('h2', { text: 'Ratings per team' }),
              analysis.likert.length > 0 ? likertTable(analysis.likert, s.config.teams) : el('p', { text: 'No Likert items in this study.' }),
              el('p', { class: 'hint', text: 'Each cell is the mean / median rating (points 1 to the item\'s scale), over the participants who rated that team.' }),
            ]
          : []),
        el('h2', { text: 'AI win rate' }),
        table(['team', 'episodes', 'AI wins', 'rate (95% Wilson)'], analysis.winRates.map((w) => [w.team, String(w.episodes), String(w.aiWins), w.rate ? `${pct(w.rate.estimate)} [${pct(w.rate.lower)}, ${pct(w.rate.upper)}]` : '-']), 'admin-winrates'),
        el('h2', { text: 'Export' }),
        downloads,
      ),
      el(
        'section',
        { class: 'study-card wide' },
        el('h2', { text: 'Participants' }),
        table(
          ['#', 'platform ids', 'block order', 'now at', 'episodes', 'restarts', 'started', 'last active', 'completed'],
          progress.participants.map((p) => [
            String(p.number),
            Object.entries(p.external).map(([k, v]) => `${k}=${v}`).join(' '),
            p.blocks.map((b) => `${b.label}: ${b.team}`).join(', '),
            stepText(p.step),
            String(p.episodes),
            String(p.restarts ?? 0),
            when(p.startedAt),
            when(p.updatedAt),
            when(p.completedAt),
          ]),
          'admin-participants',
        ),
        el('h2', { text: 'Episodes whose replay did not verify' }),
        el('p', {
          class: 'hint',
          text: 'Kept and exported (replay_ok 0), left out of the analysis. Outcome and ticks are the server\'s re-simulation; "parted by" is the first tick at which a state hash the page recorded differs.',
        }),
        table(
          ['#', 'block', 'episode', 'team', 'outcome', 'ticks', 'parted by tick', 'first problem', 'stored'],
          (progress.unverified ?? []).map((e) => [
            String(e.participant ?? ''),
            e.block < 0 ? 'practice' : String(e.block + 1),
            String(e.episode + 1),
            e.opponent,
            e.outcome,
            String(e.ticks),
            e.divergedByTick === null ? '-' : String(e.divergedByTick),
            e.problem ?? '',
            when(e.createdAt),
          ]),
          'admin-unverified',
        ),
        el('h2', { text: 'Free-text answers' }),
        table(['#', 'team', 'question', 'answer'], progress.freeText.map((f) => [String(f.participant ?? ''), f.team ? `${f.team} (${f.label})` : '', f.item, f.text]), 'admin-free-text'),
      ),
    );
  };

  const start = () => {
    const token = tokenInput.value.trim();
    if (!token) return fail('Enter the admin token.');
    const api = new AdminApi(studyId, token);
    if (timer) clearInterval(timer);
    timer = setInterval(() => void refresh(api), 10_000);
    void refresh(api);
  };
  load.addEventListener('click', start);
  tokenInput.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') start();
  });
  if (saved) start();
}
