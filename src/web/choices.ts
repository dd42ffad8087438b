/**
 * What a person may choose, read from text (the address bar, the seed field): each reader
 * gives the value or a sentence saying what is wrong. Nothing is quietly changed into
 * something else: a seed of -5 is refused, not turned into 1.
 */
import { DEFAULT_LLM_RUNS, LLM_RUNS, type LlmRuns } from '../llm';
import { TEAM_IDS, resolveTeam } from '../teams';
import { HUMAN_TEAM_ID } from '../teams/human';
import type { PageLlmSetting } from './platform';
import { type AppState, SPEEDS, type Speed, isSpeed } from './stores';

export const SEED_MAX = 0xffffffff;

export type Reading<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

const ok = <T>(value: T): Reading<T> => ({ ok: true, value });
const refuse = <T>(problem: string): Reading<T> => ({ ok: false, problem });

export function isSeed(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= SEED_MAX;
}

/** A seed typed or linked: a whole number from 0 to 4294967295, written in digits. */
export function readSeed(text: string): Reading<number> {
  const trimmed = text.trim();
  // Digits only: Number() would also take '', '1e3', '0x10' and ' 7 '.
  if (/^\d+$/.test(trimmed) && isSeed(Number(trimmed))) return ok(Number(trimmed));
  return refuse(`the seed must be a whole number from 0 to ${SEED_MAX}; '${text}' is not`);
}

export function readSpeed(text: string): Reading<Speed> {
  const value = Number(text);
  if (text.trim() !== '' && isSpeed(value)) return ok(value);
  return refuse(`the speed must be one of ${SPEEDS.join(', ')}; '${text}' is not`);
}

/** A team id or variant (`bt:persona=cautious`) for a side: any team for blue, an AI team for red and for the teammate. */
export function readTeam(text: string, role: 'blue' | 'red' | 'teammate'): Reading<string> {
  let name: string;
  try {
    const { entry, variant } = resolveTeam(text);
    if (role !== 'blue' && entry.id === HUMAN_TEAM_ID) return refuse(`${role}=${text}: people play on the blue side only`);
    name = variant.name;
  } catch (err) {
    const message = (err as Error).message;
    return refuse(message.startsWith('unknown team id') ? `${role}=${text} is not a team (teams: ${TEAM_IDS.join(', ')})` : `${role}=${text}: ${message}`);
  }
  return ok(name);
}

export interface PageOptions {
  /** Choices the address presets (only the ones it gives, and only when valid). */
  readonly presets: { -readonly [K in keyof AppState]?: AppState[K] };
  readonly autostart: boolean;
  readonly canvas: boolean;
  /** Where the llm team's model runs (?llm=server|browser|auto) and on how many threads in the page (?llmthreads=). */
  readonly llm: PageLlmSetting;
  /** One sentence per value the page could not take, for the person to see. */
  readonly problems: readonly string[];
}

/**
 * The product page's address options: ?blue=, ?red=, ?teammate=, ?seed=, ?speed=,
 * ?players=1|2, ?autostart=1, ?intro=0|1, ?renderer=canvas, ?llm=server|browser|auto,
 * ?llmthreads=1-16. A value that cannot be used is
 * named in `problems`, and the page keeps its default for it in plain view.
 */
export function readPageOptions(params: URLSearchParams): PageOptions {
  const presets: PageOptions['presets'] = {};
  const problems: string[] = [];
  const take = <T>(name: string, reading: Reading<T>, set: (value: T) => void) => {
    if (reading.ok) set(reading.value);
    else problems.push(reading.problem.startsWith(`${name}=`) ? reading.problem : `${name}: ${reading.problem}`);
  };
  for (const role of ['blue', 'red', 'teammate'] as const) {
    const value = params.get(role);
    if (value !== null) take(role, readTeam(value, role), (id) => (presets[role] = id));
  }
  const seed = params.get('seed');
  if (seed !== null) take('seed', readSeed(seed), (v) => (presets.seed = v));
  const speed = params.get('speed');
  if (speed !== null) take('speed', readSpeed(speed), (v) => (presets.speed = v));
  const players = params.get('players');
  if (players !== null) {
    if (players === '1' || players === '2') presets.twoPlayers = players === '2';
    else problems.push(`players: '${players}' is not 1 or 2`);
  }
  const flag = (name: string): boolean | null => {
    const value = params.get(name);
    if (value === null) return null;
    if (value === '1' || value === '0') return value === '1';
    problems.push(`${name}: '${value}' is not 0 or 1`);
    return null;
  };
  const intro = flag('intro');
  if (intro !== null) presets.introOpen = intro;
  const autostart = flag('autostart') === true;
  const renderer = params.get('renderer');
  if (renderer !== null && renderer !== 'canvas') problems.push(`renderer: '${renderer}' is not canvas (leave it out for the default)`);
  let llm: PageLlmSetting = { runs: DEFAULT_LLM_RUNS };
  const runs = params.get('llm');
  if (runs !== null) {
    if ((LLM_RUNS as readonly string[]).includes(runs)) llm = { runs: runs as LlmRuns };
    else problems.push(`llm: '${runs}' is not ${LLM_RUNS.join(', ')}`);
  }
  const threads = params.get('llmthreads');
  if (threads !== null) {
    if (/^([1-9]|1[0-6])$/.test(threads)) llm = { ...llm, threads: Number(threads) };
    else problems.push(`llmthreads: '${threads}' is not a whole number from 1 to 16`);
  }
  return { presets, autostart, canvas: renderer === 'canvas', llm, problems };
}
