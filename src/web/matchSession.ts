/**
 * The page's match driver, with no DOM and no Phaser: it builds a live match (the same
 * Match class Node runs) or plays a replay, advances it from the display frame loop at
 * 50 ticks per second of wall time times the chosen speed, collects effects for the
 * renderer and publishes what the panels show into the stores.
 *
 * It keeps what is on screen and its lifecycle (start, load, seek, step, end); the pace
 * lives in FrameClock (frameClock.ts), the renderer's effects in EffectLog (effects.ts),
 * and what the panels show in MatchPanels (matchPanels.ts).
 */
import { Match, type ReplayFile, parseReplay } from '../match';
import { type GameConfig, type SimEvent, type World, createWorld, hashWorld, outcomeSide, teamAgents } from '../sim';
import { type Decision, type Platform, type TeamController } from '../teams';
import { HUMAN_TEAM_ID, type HumanInputSource, createHumanTeam } from '../teams/human';
import { isSeed } from './choices';
import { type Cue, eventCues } from './cues';
import { clock, describeEvent } from './describe';
import { EffectLog } from './effects';
import { COUNTDOWN_MS, FrameClock, MAX_DELTA_MS, type PaceCounts } from './frameClock';
import { FrameStats } from './frameStats';
import { DEFAULT_PALETTE, type TeamPalette } from './palette';
import { ReplayPlayer } from './replayPlayer';
import { type AgentLabels, type OnScreen, MatchPanels, foldTicksOf, teamLlmStrategist } from './matchPanels';
import type { ModelPace } from './modelPace';
import { type FeedEntry, type Stores, clearFeed, pushFeed, resetStrategist, setDecisions } from './stores';
import type { RenderView } from './view';

export { COUNTDOWN_MS, MAX_DELTA_MS, type PaceCounts };

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
export interface MatchSnapshot {
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
  /** The game waits for each language-model decision (the person chose it). */
  readonly waitForModel: boolean;
  /** Each side's language model's decisions against its asked rate, over the recent window (null: none plays, or nothing to judge yet). */
  readonly modelPace: readonly [ModelPace | null, ModelPace | null];
}

/** Optional settings for pages that drive the session themselves (the user-study page). */
export interface MatchSessionOptions {
  /** The game config of new matches (default the standard one), e.g. a study's shorter episodes. */
  readonly config?: () => GameConfig | undefined;
  /** Text over each agent instead of skills and names (a blinded study shows no skills). */
  readonly labels?: AgentLabels;
  /** The sides' colours (a study draws its opponent in the badge colour); default blue and red. */
  readonly palette?: () => TeamPalette;
  /** Length of the countdown before a match with people, in display-frame ms (default COUNTDOWN_MS). */
  readonly countdownMs?: number;
  /** Told of each moment worth a sound (the page's sound player). */
  readonly onCue?: (cue: Cue) => void;
}

export class MatchSession {
  readonly stats = new FrameStats();
  private readonly clock = new FrameClock();
  private readonly effects = new EffectLog();
  private readonly panels: MatchPanels;
  private match: Match | null = null;
  private player: ReplayPlayer | null = null;
  private preview: World;
  /** A controller is answering (model inference): the loop holds until it does. */
  private pending = false;
  /** Bumped by each start and load, so a late answer for what was on screen before is dropped. */
  private generation = 0;
  private endHandled = false;
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
    private readonly options: MatchSessionOptions = {},
  ) {
    this.panels = new MatchPanels(stores, platform.clock, options.labels);
    this.preview = createWorld(stores.app.getState().seed);
    this.clock.snapshot(this.preview);
    // The panels show the preview's agents from the start ("waiting for a match"), not nothing.
    this.publishHud(true);
    stores.app.subscribe((s, before) => {
      if (s.seed !== before.seed && isSeed(s.seed)) {
        this.preview = createWorld(s.seed);
        if (!this.source()) this.clock.snapshot(this.preview);
      }
      if (s.speed !== before.speed || s.waitForModel !== before.waitForModel) {
        // The models' pace counts from here: what came before was played at another pace.
        this.panels.measurePaceFrom(this.world.tick);
        if (s.waitForModel !== before.waitForModel) this.applyWaiting();
        this.publishHud(true);
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
      if (gen !== this.generation) return match.close(); // a later start or a replay took its place
      this.match?.close();
      this.match = match;
      this.player = null;
      const blueIds = teamAgents(match.world, 0).map((a) => a.id);
      const humanAgents = (this.panels.humanAgents = humanSlots.map((slot) => blueIds[slot]!));
      this.panels.controllerNames = match.world.agents.map((a) => {
        const person = humanAgents.indexOf(a.id);
        if (person >= 0) return humanSlots.length > 1 ? `Player ${person + 1}` : 'You';
        const controller: TeamController = match.controllers[a.team];
        return human && a.team === 0 ? `${app.teammate} (AI teammate)` : controller.id;
      });
      resetStrategist(this.stores.strategist, [human ? `${HUMAN_TEAM_ID} + ${app.teammate}` : app.blue, app.red], [humanSlots, []]);
      this.resetView(match.world);
      this.applyWaiting();
      this.clock.countdownLeft = humanSlots.length > 0 ? (this.options.countdownMs ?? COUNTDOWN_MS) : 0;
      if (this.clock.countdownLeft > 0) this.emitCue({ kind: 'count' });
      clearFeed(this.stores.feed);
      pushFeed(this.stores.feed, [{ tick: 0, text: `Match started: ${human ? 'you' : app.blue} vs ${app.red}, seed ${app.seed}`, tone: 'neutral' }]);
      this.stores.app.setState({ mode: 'live', paused: false });
      this.publishHud(true);
    } catch (err) {
      if (gen !== this.generation) return;
      this.match?.close();
      this.match = null;
      this.player = null;
      // Every panel goes back to the chosen seed's preview: none may stay on the old match.
      this.panels.humanAgents = [];
      this.panels.controllerNames = [];
      this.resetView(this.preview);
      this.clock.countdownLeft = 0;
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
    this.match?.close();
    this.match = null;
    this.clock.countdownLeft = 0;
    this.player = new ReplayPlayer(replay);
    this.panels.humanAgents = [];
    this.panels.controllerNames = this.player.world.agents.map((a) => (a.team === 0 ? replay.teams.blue : replay.teams.red));
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
    this.clock.countdownLeft = 0;
    this.tickOnce(src);
    this.clock.snapshot(src.world);
    this.clock.settle();
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
    this.effects.clear();
    this.clock.snapshot(player.world);
    this.clock.settle();
    this.endHandled = false;
    if (restarted) {
      clearFeed(this.stores.feed);
      pushFeed(this.stores.feed, [this.replayHeadline(player)]);
    }
    pushFeed(this.stores.feed, lines);
    setDecisions(this.stores.strategist, player.decisionsSoFar(0).reverse(), player.decisionsSoFar(1).reverse(), foldTicksOf(player.world));
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
    const { elapsed, delta } = this.clock.frameAt(now);
    const src = this.source();
    const app = this.stores.app.getState();
    if (!src || this.pending) return;
    if (src.done) {
      this.clock.fade(delta); // the last effects fade out
      return;
    }
    if (app.paused) return;
    if (this.clock.countdownLeft > 0) {
      const cue = this.clock.countDown(delta);
      if (cue) {
        this.emitCue({ kind: cue });
        this.publishHud(true);
      }
      return;
    }
    const tickMs = 1000 / src.world.config.tickHz;
    this.clock.play(elapsed, delta, app.speed);
    let simMs = 0;
    while (!src.done && !this.pending && this.source() === src && this.clock.nextTick(tickMs)) simMs += this.tickOnce(src);
    const ticks = this.clock.endFrame(tickMs, src.done);
    if (src === this.match) this.stats.record(simMs, ticks, now);
    this.publishHud(src.done);
  }

  /** What the renderer draws now. */
  view(): RenderView {
    this.effects.prune(this.clock.displayMs);
    return {
      world: this.world,
      alpha: this.source() ? this.clock.alpha : 1,
      prev: this.clock.prev,
      effects: this.effects.effects,
      clock: this.clock.displayMs,
      labels: this.panels.labels(this.onScreen()),
      humanAgents: this.panels.humanAgents,
      palette: this.options.palette?.() ?? DEFAULT_PALETTE,
    };
  }

  /** State for the test hook. */
  snapshotState(): MatchSnapshot {
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
      humanAgents: [...this.panels.humanAgents],
      agents: world.agents.map((a) => ({ id: a.id, team: a.team, x: a.x, y: a.y, angle: a.angle, health: a.health, alive: a.alive })),
      error: app.error,
      pace: this.clock.pace,
      countdownMs: this.clock.countdownLeft,
      cues: { ...this.cueCounts },
      waitForModel: app.waitForModel,
      modelPace: this.stores.strategist.getState().paces,
    };
  }

  /**
   * The live match's language models wait for each answer, or not, as the person chose.
   * Waiting reuses the loop's own hold on a pending tick (tickOnce): the strategist returns a
   * promise, as a lockstep run's does in Node, and the frame loop plays nothing until it
   * settles. The replay records each decision at the tick it applied, as always, and not
   * the waiting as such (a decision made while waiting shows a request tick equal to its
   * tick); verification takes a language model's decisions from the file, so a match played
   * with waiting verifies as any other.
   */
  private applyWaiting(): void {
    const wait = this.stores.app.getState().waitForModel;
    for (const controller of this.match?.controllers ?? []) teamLlmStrategist(controller)?.setWaiting(wait);
  }

  private onScreen(): OnScreen {
    return { world: this.world, match: this.match, player: this.player, countdownMs: this.clock.countdownLeft };
  }

  /** Decisions wait for the end of the tick, so panels never redraw inside the timed simulation. */
  private onDecision(gen: number, decision: Decision): void {
    if (gen === this.generation) this.panels.queueDecision(decision);
  }

  /** Play one tick; returns the milliseconds spent in the simulation and controllers. */
  private tickOnce(src: Source): number {
    this.clock.snapshot(src.world);
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
    const humanAgents = this.panels.humanAgents;
    for (const e of src.events) {
      this.effects.add(world, e, this.clock.displayMs, humanAgents);
      if (e.type === 'respawn') this.clock.snapshotAgent(world, e.agent);
    }
    this.panels.afterTick(world, src.events, src === this.player ? this.player : null);
    eventCues(world, src.events, humanAgents, this.emitCue);
    if (src.done) this.handleEnd();
  }

  private handleEnd(): void {
    if (this.endHandled) return;
    this.endHandled = true;
    // The match stays on screen; its teams ask nothing more (a model's call still out ends).
    this.match?.close();
    this.clock.alpha = 1;
    if (this.player) this.stores.app.setState({ replayCheck: this.player.check() });
    this.publishHud(true);
  }

  private fail(err: unknown): void {
    this.stores.app.setState({ paused: true, error: `The match stopped: ${message(err)}` });
  }

  private resetView(world: World): void {
    this.effects.clear();
    this.panels.reset();
    this.clock.settle();
    this.pending = false;
    this.endHandled = false;
    this.stats.reset();
    this.clock.snapshot(world);
  }

  /** Refresh the panels' store (throttled unless forced). */
  publishHud(force = false): void {
    this.panels.publish(this.onScreen(), force);
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
