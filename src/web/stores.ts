/**
 * The page's state, in zustand vanilla stores (no DOM: they run in Node tests too).
 * - app: what the person chose and what the page is doing (mode, pause, speed, errors);
 * - hud: the match as the panels show it, refreshed several times a second;
 * - feed: the latest game events in words;
 * - strategist: each team's latest decision and where it came from.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ZoneStatus } from '../sim';
import type { Decision } from '../teams';

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
}

export const initialHud: HudState = {
  tick: 0,
  tickHz: 50,
  episodeTicks: 3000,
  progress: [0, 0],
  winSeconds: 8,
  zoneStatus: 'empty',
  outcome: null,
  teams: ['', ''],
  agents: [],
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

export interface TeamStrategy {
  /** The side's team id. */
  readonly controller: string;
  /** Latest decision first, a few kept. */
  readonly decisions: readonly Decision[];
  /** Slots a person plays on this side. */
  readonly humanSlots: readonly number[];
}

export interface StrategistState {
  readonly teams: readonly [TeamStrategy, TeamStrategy];
}

export const DECISION_HISTORY = 5;

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
    strategist: createStore<StrategistState>()(() => ({ teams: [emptyStrategy, emptyStrategy] })),
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
  });
}

/** Record a team's decision (latest first). */
export function pushDecision(store: StoreApi<StrategistState>, decision: Decision): void {
  store.setState((s) => {
    const teams = [...s.teams] as [TeamStrategy, TeamStrategy];
    const current = teams[decision.team];
    teams[decision.team] = { ...current, decisions: [decision, ...current.decisions].slice(0, DECISION_HISTORY) };
    return { teams };
  });
}

/** Set the whole decision history of both teams at once (a replay after a seek). */
export function setDecisions(store: StoreApi<StrategistState>, blue: readonly Decision[], red: readonly Decision[]): void {
  store.setState((s) => ({
    teams: [
      { ...s.teams[0], decisions: blue.slice(0, DECISION_HISTORY) },
      { ...s.teams[1], decisions: red.slice(0, DECISION_HISTORY) },
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
