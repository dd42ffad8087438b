/**
 * The page's state, in zustand vanilla stores (no DOM: they run in Node tests too).
 * - app: what the person chose and what the page is doing (mode, pause, speed, errors);
 * - hud: the match as the panels show it, refreshed several times a second;
 * - feed: the latest game events in words;
 * - strategist: each team's latest decision and where it came from.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import { DEFAULT_CONFIG, type ZoneStatus, episodeTicks } from '../sim';
import type { Decision, LlmStatus } from '../teams';
import type { ModelPace } from './modelPace';

export const SPEEDS = [0.5, 1, 2, 4, 8] as const;
export type Speed = (typeof SPEEDS)[number];

export type Mode = 'idle' | 'loading' | 'live' | 'replay';

export interface ReplayInfo {
  readonly name: string;
  readonly blue: string;
  readonly red: string;
  readonly seed: number;
  readonly ticks: number;
  readonly outcome: string;
  readonly finalHash: string;
}

/** The end of a replay compared with the hash the file records. */
export interface ReplayCheck {
  readonly ok: boolean;
  readonly expected: string;
  readonly actual: string;
}

export interface AppState {
  readonly blue: string;
  readonly red: string;
  /** AI team beside the person when blue is 'human'. */
  readonly teammate: string;
  /** A second person plays the other blue agent. */
  readonly twoPlayers: boolean;
  readonly seed: number;
  readonly speed: Speed;
  readonly paused: boolean;
  readonly mode: Mode;
  /** Shown in the page until dismissed or the next start. */
  readonly error: string | null;
  readonly replay: ReplayInfo | null;
  readonly replayCheck: ReplayCheck | null;
  readonly introOpen: boolean;
  /** Short sounds for hits, eliminations, pickups and the zone. */
  readonly sound: boolean;
  /**
   * The game waits for each language-model decision (the match holds while a call is out),
   * so a speed faster than the model still gets every decision it asks for. Kept for the
   * next matches until turned off.
   */
  readonly waitForModel: boolean;
}

export const initialApp: AppState = {
  blue: 'bt-scripted',
  red: 'heuristic',
  teammate: 'bt-scripted',
  twoPlayers: false,
  seed: 1,
  speed: 1,
  paused: false,
  mode: 'idle',
  error: null,
  replay: null,
  replayCheck: null,
  introOpen: true,
  sound: true,
  waitForModel: false,
};

export interface AgentCard {
  readonly id: number;
  readonly team: 0 | 1;
  /** "Blue 1", "Red 2". */
  readonly name: string;
  /** Who plays it: a team id, "You", "Player 2". */
  readonly controller: string;
  readonly human: boolean;
  /** Current skill, or null (a person, or a team without skills). */
  readonly skill: string | null;
  readonly health: number;
  readonly maxHealth: number;
  readonly alive: boolean;
  /** Seconds until it respawns (0 while alive). */
  readonly respawnIn: number;
  readonly kills: number;
  readonly deaths: number;
  readonly shots: number;
  readonly hits: number;
  readonly inZone: boolean;
}

export interface HudState {
  readonly tick: number;
  readonly tickHz: number;
  readonly episodeTicks: number;
  /** Seconds of zone progress, blue and red. */
  readonly progress: readonly [number, number];
  readonly winSeconds: number;
  readonly zoneStatus: ZoneStatus;
  readonly outcome: 'blue' | 'red' | 'draw' | null;
  readonly teams: readonly [string, string];
  readonly agents: readonly AgentCard[];
  /** Whole seconds left of the countdown before a match with people (3, 2, 1), else 0. */
  readonly countdown: number;
}

/** Before a match: the game's own figures (each match's config replaces them). */
export const initialHud: HudState = {
  tick: 0,
  tickHz: DEFAULT_CONFIG.tickHz,
  episodeTicks: episodeTicks(DEFAULT_CONFIG),
  progress: [0, 0],
  winSeconds: DEFAULT_CONFIG.winHoldSeconds,
  zoneStatus: 'empty',
  outcome: null,
  teams: ['', ''],
  agents: [],
  countdown: 0,
};

export type Tone = 'blue' | 'red' | 'neutral' | 'win';

export interface FeedEntry {
  readonly id: number;
  readonly tick: number;
  readonly text: string;
  readonly tone: Tone;
}

export interface FeedState {
  readonly entries: readonly FeedEntry[];
  readonly nextId: number;
}

export const FEED_LIMIT = 60;

/**
 * A decision as the strategist panel lists it. A behavior tree may flip an agent's skill
 * several times within a fraction of a second (at the start, near thresholds); such a run
 * is folded into one line: the latest decision, since when, and how many it stands for.
 */
export interface ShownDecision {
  readonly decision: Decision;
  /** Tick of the first decision of the run. */
  readonly since: number;
  /** Decisions in the run (1: just this one). */
  readonly count: number;
}

export interface TeamStrategy {
  /** The side's team id. */
  readonly controller: string;
  /** Latest first, a few kept. */
  readonly decisions: readonly ShownDecision[];
  /** Slots a person plays on this side. */
  readonly humanSlots: readonly number[];
}

export interface StrategistState {
  readonly teams: readonly [TeamStrategy, TeamStrategy];
  /** Each side's language-model calls, where a language model decides for it. */
  readonly models: readonly [LlmStatus | null, LlmStatus | null];
  /** Each side's language model's decisions per game-second against its asked rate (modelPace.ts); null: nothing to judge. */
  readonly paces: readonly [ModelPace | null, ModelPace | null];
}

export const DECISION_HISTORY = 5;

/** Decisions of one team within this long of the first of a run are folded into it. */
export const FOLD_SECONDS = 0.5;

const emptyStrategy: TeamStrategy = { controller: '', decisions: [], humanSlots: [] };

export interface Stores {
  readonly app: StoreApi<AppState>;
  readonly hud: StoreApi<HudState>;
  readonly feed: StoreApi<FeedState>;
  readonly strategist: StoreApi<StrategistState>;
}

export function createStores(app: Partial<AppState> = {}): Stores {
  return {
    app: createStore<AppState>()(() => ({ ...initialApp, ...app })),
    hud: createStore<HudState>()(() => initialHud),
    feed: createStore<FeedState>()(() => ({ entries: [], nextId: 1 })),
    strategist: createStore<StrategistState>()(() => ({ teams: [emptyStrategy, emptyStrategy], models: [null, null], paces: [null, null] })),
  };
}

/** Append entries to the feed, newest last, keeping the latest FEED_LIMIT. */
export function pushFeed(store: StoreApi<FeedState>, items: readonly Omit<FeedEntry, 'id'>[]): void {
  if (items.length === 0) return;
  store.setState((s) => {
    let id = s.nextId;
    const added = items.map((item) => ({ ...item, id: id++ }));
    const entries = [...s.entries, ...added];
    return { entries: entries.length > FEED_LIMIT ? entries.slice(entries.length - FEED_LIMIT) : entries, nextId: id };
  });
}

export function clearFeed(store: StoreApi<FeedState>): void {
  store.setState({ entries: [] });
}

/** Start a fresh strategist panel for a match or replay. */
export function resetStrategist(store: StoreApi<StrategistState>, controllers: readonly [string, string], humanSlots: readonly [readonly number[], readonly number[]] = [[], []]): void {
  store.setState({
    teams: [
      { controller: controllers[0], decisions: [], humanSlots: humanSlots[0] },
      { controller: controllers[1], decisions: [], humanSlots: humanSlots[1] },
    ],
    models: [null, null],
    paces: [null, null],
  });
}

/** Show a side's language-model status; the store changes only when what it shows does. */
export function setModelStatus(store: StoreApi<StrategistState>, team: 0 | 1, status: LlmStatus | null): void {
  setSide(store, 'models', team, status, (a, b) =>
    a.askedAtTick === b.askedAtTick && a.last === b.last && a.requests === b.requests && a.answers === b.answers && a.timeouts === b.timeouts && a.otherFailures === b.otherFailures,
  );
}

/** Show a side's model pace; the store changes only when what it shows does. */
export function setModelPace(store: StoreApi<StrategistState>, team: 0 | 1, pace: ModelPace | null): void {
  setSide(store, 'paces', team, pace, (a, b) => a.decided === b.decided && a.asked === b.asked && a.seconds === b.seconds && a.behind === b.behind);
}

/** Set one side's entry of a per-side pair, unless `same` says it shows as it did. */
function setSide<K extends 'models' | 'paces'>(
  store: StoreApi<StrategistState>,
  key: K,
  team: 0 | 1,
  value: StrategistState[K][0],
  same: (a: NonNullable<StrategistState[K][0]>, b: NonNullable<StrategistState[K][0]>) => boolean,
): void {
  const before = store.getState()[key][team];
  if (before === value || (before != null && value != null && same(before as NonNullable<StrategistState[K][0]>, value as NonNullable<StrategistState[K][0]>))) return;
  store.setState((s) => {
    const pair = [s[key][0], s[key][1]] as [StrategistState[K][0], StrategistState[K][0]];
    pair[team] = value;
    return { [key]: pair } as Partial<StrategistState>;
  });
}

/** Add a decision to a team's list (latest first), folding it into the run it belongs to. */
export function foldDecision(shown: readonly ShownDecision[], decision: Decision, foldTicks: number): ShownDecision[] {
  const latest = shown[0];
  if (latest && decision.tick - latest.since < foldTicks) return [{ decision, since: latest.since, count: latest.count + 1 }, ...shown.slice(1)];
  return [{ decision, since: decision.tick, count: 1 }, ...shown].slice(0, DECISION_HISTORY);
}

/** Record a team's decision; `foldTicks` is FOLD_SECONDS in the match's ticks. */
export function pushDecision(store: StoreApi<StrategistState>, decision: Decision, foldTicks: number): void {
  store.setState((s) => {
    const teams = [...s.teams] as [TeamStrategy, TeamStrategy];
    const current = teams[decision.team];
    teams[decision.team] = { ...current, decisions: foldDecision(current.decisions, decision, foldTicks) };
    return { teams };
  });
}

/** Set both teams' decisions at once from their histories, oldest first (a replay after a seek). */
export function setDecisions(store: StoreApi<StrategistState>, blue: readonly Decision[], red: readonly Decision[], foldTicks: number): void {
  const fold = (decisions: readonly Decision[]) => decisions.reduce<ShownDecision[]>((shown, d) => foldDecision(shown, d, foldTicks), []);
  store.setState((s) => ({
    teams: [
      { ...s.teams[0], decisions: fold(blue) },
      { ...s.teams[1], decisions: fold(red) },
    ],
  }));
}

export function nextSpeed(speed: Speed, direction: 1 | -1): Speed {
  const i = SPEEDS.indexOf(speed);
  return SPEEDS[Math.max(0, Math.min(SPEEDS.length - 1, i + direction))]!;
}

export function isSpeed(value: number): value is Speed {
  return (SPEEDS as readonly number[]).includes(value);
}
