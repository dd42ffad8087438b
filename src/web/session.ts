/**
 * The page's match driver, with no DOM and no Phaser: it builds a live match (the same
 * Match class Node runs) or plays a replay, advances it from the display frame loop at
 * 50 ticks per second of wall time times the chosen speed, collects effects for the
 * renderer and publishes what the panels show into the stores.
 *
 * The match is stepped by the time the platform's clock says has passed between display
 * frames, not by the renderer's frame delta: Phaser smooths its delta and caps it at 16.7 ms
 * while the page is not focused, so at 15-30 fps (the WebGL renderer in a software
 * rasteriser) 4x played at 1-2.3x while Canvas at 55 fps played 3.7x.
 */
import { Match, type ReplayFile, parseReplay } from '../match';
import { type GameConfig, type SimEvent, type World, createWorld, hashWorld, outcomeSide, teamAgents } from '../sim';
import { type Decision, type Platform, type TeamController, llmStrategistOf } from '../teams';
import { HUMAN_TEAM_ID, type HumanInputSource, HumanTeamController, createHumanTeam } from '../teams/human';
import { isSeed } from './choices';
import { type Cue, eventCues } from './cues';
import { agentName, clock, describeEvent } from './describe';
import { FrameStats } from './frameStats';
import { DEFAULT_PALETTE, type TeamPalette } from './palette';
import { ReplayPlayer } from './replayPlayer';
import {
  type AgentCard,
  FOLD_SECONDS,
  type FeedEntry,
  type HudState,
  type Stores,
  clearFeed,
  pushDecision,
  pushFeed,
  resetStrategist,
  setDecisions,
  setModelStatus,
} from './stores';
import { EFFECT_MS, type Effect, type RenderView } from './view';

/** Longest frame the loop catches up on (a hidden tab or a stall must not fast-forward the match). */
export const MAX_DELTA_MS = 250;
const TICK_DUE_SLACK_MS = 1e-6;
/** Most ticks played in one display frame (8x at 30 fps is about 14). */
const MAX_TICKS_PER_FRAME = 48;
/** The panels refresh at most this often while a match runs. */
const HUD_EVERY_MS = 100;
const MAX_EFFECTS = 256;
/** The 3-2-1 before a match with people in it, so nobody starts a second late. */
export const COUNTDOWN_MS = 3000;

interface Source {
  readonly world: World;
  readonly events: readonly SimEvent[];
  readonly done: boolean;
  advance(): void | Promise<void>;
}

export interface HookAgent {
  readonly id: number;
  readonly team: 0 | 1;
  readonly x: number;
  readonly y: number;
  readonly angle: number;
  readonly health: number;
  readonly alive: boolean;
}

/** What the test hook reports. */
export interface SessionSnapshot {
  readonly mode: string;
  readonly tick: number;
  readonly hash: string | null;
  readonly done: boolean;
  readonly outcome: 'blue' | 'red' | 'draw' | null;
  readonly paused: boolean;
  readonly speed: number;
  readonly humanAgents: readonly number[];
  readonly agents: readonly HookAgent[];
  readonly error: string | null;
  /** Counts that say whether the pace is right on any machine (tests compare them, not wall time). */
  readonly pace: PaceCounts;
  /** Display-frame milliseconds of the countdown still to run (0: none, or over). */
  readonly countdownMs: number;
  /** Cues given since the page loaded, by kind (what the sound plays). */
  readonly cues: Readonly<Record<string, number>>;
}

/** Since the page loaded, over the frames that played (not paused, not ended). */
export interface PaceCounts {
  /** Milliseconds the clock moved between display frames (what the match is stepped by, before the cap). */
  readonly clockMs: number;
  /** The same, each frame's capped at MAX_DELTA_MS (a stall is not caught up). */
  readonly frameMs: number;
  /** The same times the speed: the game time those frames called for. */
  readonly gameMs: number;
  /** Game time called for but not played (frames that hit MAX_TICKS_PER_FRAME drop the rest). */
  readonly droppedGameMs: number;
}

/** Optional settings for pages that drive the session themselves (the user-study page). */
export interface SessionOptions {
  /** The game config of new matches (default the standard one), e.g. a study's shorter episodes. */
  readonly config?: () => GameConfig | undefined;
  /** Text over each agent instead of skills and names (a blinded study shows no skills). */
  readonly labels?: (world: World, humanAgents: readonly number[]) => (string | null)[];
  /** The sides' colours (a study draws its opponent in the badge colour); default blue and red. */
  readonly palette?: () => TeamPalette;
  /** Length of the countdown before a match with people, in display-frame ms (default COUNTDOWN_MS). */
  readonly countdownMs?: number;
  /** Told of each moment worth a sound (the page's sound player). */
  readonly onCue?: (cue: Cue) => void;
}

export class GameSession {
  readonly stats = new FrameStats();
  private match: Match | null = null;
  private player: ReplayPlayer | null = null;
  private preview: World;
  private humanAgents: number[] = [];
  /** Who plays each agent, for the cards. */
  private controllerNames: string[] = [];
  private accumulator = 0;
  private alpha = 1;
  private prev = new Float64Array(0);
  private effects: Effect[] = [];
  private clockMs = 0;
  private pending = false;
  private generation = 0;
  private lastHud = -Infinity;
  private endHandled = false;
  private decisions: Decision[] = [];
  private pace = { clockMs: 0, frameMs: 0, gameMs: 0, droppedGameMs: 0 };
  /** The clock at the last display frame (null before the first). */
  private lastFrameAt: number | null = null;
  /** Display-frame ms of countdown left; the match waits at tick 0 meanwhile. */
  private countdownLeft = 0;
  private readonly cueCounts: Record<string, number> = {};
  private readonly emitCue = (cue: Cue) => {
    this.cueCounts[cue.kind] = (this.cueCounts[cue.kind] ?? 0) + 1;
    this.options.onCue?.(cue);
  };

  constructor(
    readonly stores: Stores,
    /** The page's platform: its models, its language model (the server's proxy), its clock. */
    private readonly platform: Platform,
    private readonly input: HumanInputSource,
    private readonly options: SessionOptions = {},
  ) {
    this.preview = createWorld(stores.app.getState().seed);
    this.snapshot(this.preview);
    // The panels show the preview's agents from the start ("waiting for a match"), not nothing.
    this.publishHud(true);
    stores.app.subscribe((s, before) => {
      if (s.seed !== before.seed && isSeed(s.seed)) {
        this.preview = createWorld(s.seed);
        if (!this.source()) this.snapshot(this.preview);
      }
    });
  }

  /** The world on screen: the match, the replay, or a preview of the chosen seed. */
  get world(): World {
    return this.source()?.world ?? this.preview;
  }

  get currentMatch(): Match | null {
    return this.match;
  }

  get currentReplay(): ReplayPlayer | null {
    return this.player;
  }

  get done(): boolean {
    return this.source()?.done ?? false;
  }

  private source(): Source | null {
    return this.match ?? this.player;
  }

  /** Start a new match from the choices in the app store (replaces what was on screen). */
  async start(): Promise<void> {
    const gen = ++this.generation;
    const app = this.stores.app.getState();
    this.stores.app.setState({ mode: 'loading', error: null, replay: null, replayCheck: null, paused: false });
    try {
      if (app.red === HUMAN_TEAM_ID) throw new Error('people play on the blue side; choose an AI team for red');
      if (!isSeed(app.seed)) throw new Error('the seed must be a whole number from 0 to 4294967295');
      const human = app.blue === HUMAN_TEAM_ID;
      const humanSlots = human ? (app.twoPlayers ? [0, 1] : [0]) : [];
      const config = this.options.config?.();
      const match = await Match.create(
        { blue: app.blue, red: app.red, seed: app.seed, ...(config ? { config } : {}) },
        {
          platform: this.platform,
          onDecision: (d) => this.onDecision(gen, d),
          ...(human
            ? { controllers: { blue: (ctx) => createHumanTeam(ctx, { teammate: app.teammate, humanSlots, input: this.input }) } }
            : {}),
        },
      );
      if (gen !== this.generation) return;
      this.match = match;
      this.player = null;
      const blueIds = teamAgents(match.world, 0).map((a) => a.id);
      this.humanAgents = humanSlots.map((slot) => blueIds[slot]!);
      this.controllerNames = match.world.agents.map((a) => {
        const person = this.humanAgents.indexOf(a.id);
        if (person >= 0) return humanSlots.length > 1 ? `Player ${person + 1}` : 'You';
        const controller: TeamController = match.controllers[a.team];
        return human && a.team === 0 ? `${app.teammate} (AI teammate)` : controller.id;
      });
      resetStrategist(this.stores.strategist, [human ? `${HUMAN_TEAM_ID} + ${app.teammate}` : app.blue, app.red], [humanSlots, []]);
      this.resetView(match.world);
      this.countdownLeft = humanSlots.length > 0 ? (this.options.countdownMs ?? COUNTDOWN_MS) : 0;
      if (this.countdownLeft > 0) this.emitCue({ kind: 'count' });
      clearFeed(this.stores.feed);
      pushFeed(this.stores.feed, [{ tick: 0, text: `Match started: ${human ? 'you' : app.blue} vs ${app.red}, seed ${app.seed}`, tone: 'neutral' }]);
      this.stores.app.setState({ mode: 'live', paused: false });
      this.publishHud(true);
    } catch (err) {
      if (gen !== this.generation) return;
      this.match = null;
      this.player = null;
      // Every panel goes back to the chosen seed's preview: none may stay on the old match.
      this.humanAgents = [];
      this.controllerNames = [];
      this.resetView(this.preview);
      this.countdownLeft = 0;
      resetStrategist(this.stores.strategist, ['', '']);
      clearFeed(this.stores.feed);
      this.stores.app.setState({ mode: 'idle', error: `Could not start ${app.blue} vs ${app.red}: ${message(err)}` });
      this.publishHud(true);
    }
  }

  /** Load replay JSON text; errors are shown in the page and leave the screen as it was. */
  loadReplay(text: string, name: string): boolean {
    let replay: ReplayFile;
    try {
      replay = parseReplay(text, name);
    } catch (err) {
      this.stores.app.setState({ error: `Could not load the replay: ${message(err)}` });
      return false;
    }
    this.generation++;
    this.match = null;
    this.countdownLeft = 0;
    this.player = new ReplayPlayer(replay);
    this.humanAgents = [];
    this.controllerNames = this.player.world.agents.map((a) => (a.team === 0 ? replay.teams.blue : replay.teams.red));
    resetStrategist(this.stores.strategist, [replay.teams.blue, replay.teams.red]);
    this.resetView(this.player.world);
    clearFeed(this.stores.feed);
    pushFeed(this.stores.feed, [this.replayHeadline(this.player)]);
    this.stores.app.setState({
      mode: 'replay',
      paused: false,
      error: null,
      replayCheck: null,
      // The pickers show the replay's matchup: Start then plays it live, not the old choice.
      blue: replay.teams.blue,
      red: replay.teams.red,
      seed: replay.seed,
      replay: {
        name,
        blue: replay.teams.blue,
        red: replay.teams.red,
        seed: replay.seed,
        ticks: replay.ticks,
        outcome: replay.outcome,
        finalHash: replay.finalHash,
      },
    });
    this.publishHud(true);
    return true;
  }

  private replayHeadline(player: ReplayPlayer): Omit<FeedEntry, 'id'> {
    const r = player.replay;
    return { tick: 0, text: `Replay loaded: ${r.teams.blue} vs ${r.teams.red}, seed ${r.seed}, ${clock(r.ticks, r.config.tickHz)}`, tone: 'neutral' };
  }

  /** The live match's replay as JSON text, or null when no match is live. */
  replayText(): string | null {
    return this.match ? JSON.stringify(this.match.replay()) : null;
  }

  /** A file name for the live match's replay. */
  replayFileName(): string {
    const m = this.match;
    if (!m) return 'hillmind-replay.json';
    return `hillmind-${m.controllers[0].id}-vs-${m.controllers[1].id}-seed${m.world.seed}-t${m.world.tick}.json`;
  }

  setPaused(paused: boolean): void {
    this.stores.app.setState({ paused });
    this.publishHud(true);
  }

  togglePause(): void {
    this.setPaused(!this.stores.app.getState().paused);
  }

  /** Play exactly one tick (pauses first, and ends a countdown: the person asked to move on), then show the world as it is. */
  stepOnce(): void {
    const src = this.source();
    if (!src || src.done || this.pending) return;
    if (!this.stores.app.getState().paused) this.stores.app.setState({ paused: true });
    this.countdownLeft = 0;
    this.tickOnce(src);
    this.snapshot(src.world);
    this.accumulator = 0;
    this.alpha = 1;
    this.publishHud(true);
  }

  /**
   * Jump a replay to `tick`. The feed is rebuilt from the events on the way, so it reads
   * as if the replay had played to there.
   */
  seek(tick: number): void {
    const player = this.player;
    if (!player) return;
    const lines: Omit<FeedEntry, 'id'>[] = [];
    const { restarted } = player.seek(tick, (world, events) => {
      for (const e of events) {
        const line = describeEvent(world, e);
        if (line) lines.push(line);
      }
    });
    this.effects = [];
    this.snapshot(player.world);
    this.accumulator = 0;
    this.alpha = 1;
    this.endHandled = false;
    if (restarted) {
      clearFeed(this.stores.feed);
      pushFeed(this.stores.feed, [this.replayHeadline(player)]);
    }
    pushFeed(this.stores.feed, lines);
    setDecisions(this.stores.strategist, player.decisionsSoFar(0).reverse(), player.decisionsSoFar(1).reverse(), this.foldTicks(player.world));
    this.stores.app.setState({ replayCheck: null });
    if (player.done) this.handleEnd();
    this.publishHud(true);
  }

  /**
   * One display frame: play the ticks that the time since the last frame (on the
   * platform's clock) and the speed call for, catching up at most MAX_DELTA_MS and
   * MAX_TICKS_PER_FRAME ticks.
   */
  frame(): void {
    const now = this.platform.clock.now();
    const elapsed = this.lastFrameAt === null ? 0 : Math.max(now - this.lastFrameAt, 0);
    this.lastFrameAt = now;
    const src = this.source();
    const app = this.stores.app.getState();
    if (!src || this.pending) return;
    const delta = Math.min(elapsed, MAX_DELTA_MS);
    if (src.done) {
      // Let the last effects fade out.
      this.clockMs += delta;
      return;
    }
    if (app.paused) return;
    if (this.countdownLeft > 0) {
      this.countDown(delta);
      return;
    }
    this.clockMs += delta;
    const tickMs = 1000 / src.world.config.tickHz;
    this.accumulator += delta * app.speed;
    this.pace.clockMs += elapsed;
    this.pace.frameMs += delta;
    this.pace.gameMs += delta * app.speed;
    let ticks = 0;
    let simMs = 0;
    // Clock differences carry rounding (60 frames of 1000/60 ms sum to 999.9999999999998):
    // a tick due within a nanosecond is due.
    while (this.accumulator >= tickMs - TICK_DUE_SLACK_MS && ticks < MAX_TICKS_PER_FRAME && !src.done && !this.pending && this.source() === src) {
      this.accumulator -= tickMs;
      simMs += this.tickOnce(src);
      ticks++;
    }
    if (ticks === MAX_TICKS_PER_FRAME && this.accumulator > tickMs) {
      this.pace.droppedGameMs += this.accumulator - tickMs;
      this.accumulator = tickMs;
    }
    this.alpha = src.done ? 1 : Math.min(1, Math.max(0, this.accumulator / tickMs));
    if (src === this.match) this.stats.record(simMs, ticks, now);
    this.publishHud(src.done);
  }

  /** The countdown runs on display-frame time, so it pauses with the page and tests can step it. */
  private countDown(delta: number): void {
    const shown = Math.ceil(this.countdownLeft / 1000);
    this.clockMs += delta;
    this.countdownLeft = Math.max(0, this.countdownLeft - delta);
    const now = Math.ceil(this.countdownLeft / 1000);
    if (now !== shown) {
      this.emitCue({ kind: now === 0 ? 'go' : 'count' });
      this.publishHud(true);
    }
  }

  private foldTicks(world: World): number {
    return Math.round(FOLD_SECONDS * world.config.tickHz);
  }

  /** What the renderer draws now. */
  view(): RenderView {
    const world = this.world;
    this.pruneEffects();
    return {
      world,
      alpha: this.source() ? this.alpha : 1,
      prev: this.prev,
      effects: this.effects,
      clock: this.clockMs,
      labels: this.labels(world),
      humanAgents: this.humanAgents,
      palette: this.options.palette?.() ?? DEFAULT_PALETTE,
    };
  }

  /** State for the test hook. */
  snapshotState(): SessionSnapshot {
    const src = this.source();
    const world = this.world;
    const app = this.stores.app.getState();
    return {
      mode: app.mode,
      tick: world.tick,
      hash: src ? hashWorld(world) : null,
      done: src?.done ?? false,
      outcome: outcomeSide(world.outcome),
      paused: app.paused,
      speed: app.speed,
      humanAgents: [...this.humanAgents],
      agents: world.agents.map((a) => ({ id: a.id, team: a.team, x: a.x, y: a.y, angle: a.angle, health: a.health, alive: a.alive })),
      error: app.error,
      pace: { ...this.pace },
      countdownMs: this.countdownLeft,
      cues: { ...this.cueCounts },
    };
  }

  private labels(world: World): (string | null)[] {
    if (this.options.labels && this.source()) return this.options.labels(world, this.humanAgents);
    const match = this.match;
    if (match) {
      const slots = [0, 0];
      return world.agents.map((a) => {
        const slot = slots[a.team]!++;
        const person = this.humanAgents.indexOf(a.id);
        if (person >= 0) return this.humanAgents.length > 1 ? `P${person + 1}` : 'YOU';
        return match.controllers[a.team].currentSkills[slot] ?? null;
      });
    }
    if (this.player) return this.player.skills();
    return world.agents.map(() => null);
  }

  /** Decisions wait for the end of the tick, so panels never redraw inside the timed simulation. */
  private onDecision(gen: number, decision: Decision): void {
    if (gen === this.generation) this.decisions.push(decision);
  }

  /** Play one tick; returns the milliseconds spent in the simulation and controllers. */
  private tickOnce(src: Source): number {
    this.snapshot(src.world);
    const start = this.platform.clock.now();
    let result: void | Promise<void>;
    try {
      result = src.advance();
    } catch (err) {
      this.fail(err);
      return this.platform.clock.now() - start;
    }
    const spent = this.platform.clock.now() - start;
    if (result instanceof Promise) {
      // A controller is waiting (model inference): hold the loop until it answers.
      this.pending = true;
      const gen = this.generation;
      result.then(
        () => {
          if (gen !== this.generation) return;
          this.pending = false;
          this.afterTick(src);
        },
        (err: unknown) => {
          if (gen !== this.generation) return;
          this.pending = false;
          this.fail(err);
        },
      );
    } else this.afterTick(src);
    return spent;
  }

  private afterTick(src: Source): void {
    const world = src.world;
    const feed: Omit<FeedEntry, 'id'>[] = [];
    for (const e of src.events) {
      this.addEffect(world, e);
      const line = describeEvent(world, e);
      if (line) feed.push(line);
      if (e.type === 'respawn') this.snapshotAgent(world, e.agent);
    }
    pushFeed(this.stores.feed, feed);
    eventCues(world, src.events, this.humanAgents, this.emitCue);
    const foldTicks = this.foldTicks(world);
    for (const d of this.decisions) pushDecision(this.stores.strategist, d, foldTicks);
    this.decisions.length = 0;
    if (this.player && src === this.player) {
      for (const d of this.player.replay.decisions) if (d.tick === world.tick - 1) pushDecision(this.stores.strategist, d, foldTicks);
    }
    if (src.done) this.handleEnd();
  }

  private handleEnd(): void {
    if (this.endHandled) return;
    this.endHandled = true;
    this.alpha = 1;
    if (this.player) this.stores.app.setState({ replayCheck: this.player.check() });
    this.publishHud(true);
  }

  private fail(err: unknown): void {
    this.stores.app.setState({ paused: true, error: `The match stopped: ${message(err)}` });
  }

  private addEffect(world: World, e: SimEvent): void {
    const born = this.clockMs;
    const push = (effect: Effect) => {
      if (this.effects.length >= MAX_EFFECTS) this.effects.shift();
      this.effects.push(effect);
    };
    switch (e.type) {
      case 'shot':
        push({ kind: 'tracer', born, fromX: e.fromX, fromY: e.fromY, toX: e.toX, toY: e.toY, team: world.agents[e.agent]!.team, hit: e.target >= 0 });
        break;
      case 'hit': {
        const t = world.agents[e.target]!;
        push({ kind: 'hit', born, x: t.x, y: t.y, target: e.target, byPerson: this.humanAgents.includes(e.agent), onPerson: this.humanAgents.includes(e.target) });
        break;
      }
      case 'zoneStatus':
        if (e.status === 'blue' || e.status === 'red') push({ kind: 'capture', born, team: e.status === 'blue' ? 0 : 1 });
        break;
      case 'kill': {
        const t = world.agents[e.target]!;
        push({ kind: 'kill', born, x: t.x, y: t.y, team: t.team });
        break;
      }
      case 'respawn': {
        const a = world.agents[e.agent]!;
        push({ kind: 'respawn', born, x: a.x, y: a.y, team: a.team });
        break;
      }
      case 'pickup': {
        const p = world.pickups[e.pickup]!;
        push({ kind: 'pickup', born, x: p.x, y: p.y });
        break;
      }
      case 'pickupReturn': {
        const p = world.pickups[e.pickup]!;
        push({ kind: 'pickupReturn', born, x: p.x, y: p.y });
        break;
      }
      case 'dash':
        push({ kind: 'dash', born, agent: e.agent });
        break;
      default:
        break;
    }
  }

  private pruneEffects(): void {
    const now = this.clockMs;
    let keep = 0;
    for (const e of this.effects) if (now - e.born < EFFECT_MS[e.kind]) this.effects[keep++] = e;
    this.effects.length = keep;
  }

  private resetView(world: World): void {
    this.effects = [];
    this.decisions = [];
    this.accumulator = 0;
    this.alpha = 1;
    this.pending = false;
    this.endHandled = false;
    this.lastHud = -Infinity;
    this.stats.reset();
    this.snapshot(world);
  }

  private snapshot(world: World): void {
    if (this.prev.length !== world.agents.length * 3) this.prev = new Float64Array(world.agents.length * 3);
    for (const a of world.agents) this.snapshotAgent(world, a.id);
  }

  private snapshotAgent(world: World, id: number): void {
    const a = world.agents[id]!;
    this.prev[id * 3] = a.x;
    this.prev[id * 3 + 1] = a.y;
    this.prev[id * 3 + 2] = a.angle;
  }

  /** Refresh the panels' store (throttled unless forced). */
  publishHud(force = false): void {
    const t = this.platform.clock.now();
    if (!force && t - this.lastHud < HUD_EVERY_MS) return;
    this.lastHud = t;
    this.stores.hud.setState(this.hud());
    this.publishModelStatus();
  }

  /** The language models' calls, for the strategist panel: pending, the last one's time or failure. */
  private publishModelStatus(): void {
    const match = this.match;
    for (const team of [0, 1] as const) {
      const controller = match?.controllers[team];
      const strategist = controller ? (llmStrategistOf(controller) ?? (controller instanceof HumanTeamController ? llmStrategistOf(controller.teammate) : null)) : null;
      setModelStatus(this.stores.strategist, team, strategist ? strategist.status() : null);
    }
  }

  private hud(): HudState {
    const world = this.world;
    const hz = world.config.tickHz;
    const labels = this.labels(world);
    const agents: AgentCard[] = world.agents.map((a) => ({
      id: a.id,
      team: a.team,
      name: agentName(world, a.id),
      controller: this.source() ? (this.controllerNames[a.id] ?? '') : '',
      human: this.humanAgents.includes(a.id),
      skill: this.humanAgents.includes(a.id) ? null : (labels[a.id] ?? null),
      health: a.health,
      maxHealth: world.config.agent.maxHealth,
      alive: a.alive,
      respawnIn: a.alive ? 0 : a.respawnTimer / hz,
      kills: a.stats.kills,
      deaths: a.stats.deaths,
      shots: a.stats.shots,
      hits: a.stats.hits,
      inZone: a.inZone,
    }));
    const src = this.source();
    const teams: [string, string] = this.match
      ? [this.match.controllers[0].id, this.match.controllers[1].id]
      : this.player
        ? [this.player.replay.teams.blue, this.player.replay.teams.red]
        : ['', ''];
    return {
      tick: world.tick,
      tickHz: hz,
      episodeTicks: world.timings.episode,
      progress: [world.progress[0] / hz, world.progress[1] / hz],
      winSeconds: world.config.winHoldSeconds,
      zoneStatus: world.zoneStatus,
      outcome: src ? outcomeSide(world.outcome) : null,
      teams,
      agents,
      countdown: Math.ceil(this.countdownLeft / 1000),
    };
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
