/**
 * The arena on the study page: the product's GameSession, Phaser scene and human controls,
 * with blinded labels (YOU and ALLY over the participant's team, nothing over the
 * opponents, B1/B2/R1/R2 in replays) and the study's game config. It plays one episode at a
 * time and says when it ends, or plays a replay for an observer.
 */
import type * as Phaser from 'phaser';
import type { MatchSummary, ReplayFile } from '../../match';
import { DEFAULT_CONFIG, type GameConfig, type World } from '../../sim';
import type { Platform } from '../../teams';
import { clock } from '../describe';
import { el, setText } from '../dom';
import { createGame, rendererName } from '../game';
import { installHook } from '../hook';
import { BrowserInput } from '../input';
import { canvasSize } from '../layout';
import { GameSession } from '../session';
import { type Stores, createStores } from '../stores';

export interface EpisodeSetup {
  readonly opponent: string;
  /** An AI team id, or "person" for a second person on the blue team. */
  readonly teammate: string;
  readonly seed: number;
  readonly episodeSeconds: number | null;
  /** How the opponent is named and coloured on screen. */
  readonly badge: { readonly label: string; readonly colour: string };
}

export interface EpisodeResult {
  readonly outcome: 'blue' | 'red' | 'draw';
  readonly replay: ReplayFile;
  readonly summary: MatchSummary;
}

/** The game config of a study's episodes (the server expects exactly this). */
export function studyGameConfig(episodeSeconds: number | null): GameConfig {
  return episodeSeconds ? { ...DEFAULT_CONFIG, episodeSeconds } : DEFAULT_CONFIG;
}

export class StudyArena {
  readonly root: HTMLElement;
  readonly stores: Stores;
  readonly session: GameSession;
  private readonly input: BrowserInput;
  private readonly arena: HTMLElement;
  private game: Phaser.Game | null = null;
  private config: GameConfig = DEFAULT_CONFIG;
  private mode: 'play' | 'watch' = 'play';
  private onEnd: (() => void) | null = null;
  private readonly opponentName = el('div', { class: 'sb-name', id: 'opponent-name' });
  private readonly swatch = el('span', { class: 'swatch' });

  constructor(platform: Platform) {
    this.stores = createStores({ blue: 'human', introOpen: false });
    this.arena = el('div', { class: 'arena', id: 'arena', tabindex: 0, 'aria-label': 'Arena' });
    this.input = new BrowserInput(this.arena, () => canvasSize(this.session.world.config));
    this.session = new GameSession(this.stores, platform, this.input, {
      config: () => this.config,
      labels: (world, humans) => this.labels(world, humans),
    });
    this.root = el('section', { class: 'study-arena', id: 'study-arena' }, this.scoreboard(), el('div', { class: 'arena-wrap' }, this.arena), this.controlsHint());
    this.stores.hud.subscribe((h) => {
      if (h.outcome && h.tick > 0 && this.onEnd) {
        const done = this.onEnd;
        this.onEnd = null;
        done();
      }
    });
  }

  /** Create the Phaser game once the arena is in the page. */
  mount(canvas: boolean): void {
    if (this.game) return;
    this.game = createGame(this.arena, this.session, { canvas });
    installHook(this.session, () => (this.game ? rendererName(this.game) : 'none'));
  }

  /**
   * Move the arena off screen (parked) or back. It stays laid out while parked, so the
   * canvas keeps its size and the next episode starts without a resize.
   */
  park(parked: boolean): void {
    this.root.classList.toggle('parked', parked);
    this.root.setAttribute('aria-hidden', parked ? 'true' : 'false');
    if (parked) this.input.active = false;
  }

  private labels(world: World, humans: readonly number[]): (string | null)[] {
    if (this.mode === 'watch') return world.agents.map((a) => `${a.team === 0 ? 'B' : 'R'}${a.slot + 1}`);
    return world.agents.map((a) => {
      const person = humans.indexOf(a.id);
      if (person >= 0) return humans.length > 1 ? `P${person + 1}` : 'YOU';
      return a.team === 0 ? 'ALLY' : null;
    });
  }

  private scoreboard(): HTMLElement {
    const blueFill = el('div', { class: 'sb-fill' });
    const redFill = el('div', { class: 'sb-fill opponent-fill' });
    const blueValue = el('div', { class: 'sb-value mono' });
    const redValue = el('div', { class: 'sb-value mono' });
    const time = el('div', { class: 'sb-clock mono', id: 'clock' });
    const status = el('div', { class: 'sb-zone', id: 'zone-status' });
    const blueName = el('div', { class: 'sb-name', id: 'own-name', text: 'Your team (blue)' });
    const root = el(
      'section',
      { class: 'scoreboard', id: 'scoreboard' },
      el('div', { class: 'sb-side blue' }, blueName, el('div', { class: 'sb-bar' }, blueFill), blueValue),
      el('div', { class: 'sb-center' }, time, status),
      el('div', { class: 'sb-side red' }, el('div', { class: 'sb-name-wrap' }, this.swatch, this.opponentName), el('div', { class: 'sb-bar' }, redFill), redValue),
    );
    const render = () => {
      const h = this.stores.hud.getState();
      const fills = [blueFill, redFill];
      const values = [blueValue, redValue];
      for (const team of [0, 1]) {
        const seconds = h.progress[team]!;
        fills[team]!.style.width = `${Math.min(100, (100 * seconds) / h.winSeconds).toFixed(1)}%`;
        setText(values[team]!, `${seconds.toFixed(1)} / ${h.winSeconds} s`);
      }
      setText(blueName, this.mode === 'watch' ? 'Blue team' : 'Your team (blue)');
      if (h.outcome) {
        const text = h.outcome === 'draw' ? 'Draw' : this.mode === 'watch' ? `${h.outcome === 'blue' ? 'Blue' : 'Red'} wins` : h.outcome === 'blue' ? 'You win' : `${this.opponentName.textContent} wins`;
        setText(time, text);
        setText(status, `after ${clock(h.tick, h.tickHz)}`);
        return;
      }
      setText(time, clock(Math.max(0, h.episodeTicks - h.tick), h.tickHz));
      setText(status, h.zoneStatus === 'empty' ? 'Zone empty' : h.zoneStatus === 'contested' ? 'Zone contested' : h.zoneStatus === 'blue' ? 'Blue holds the zone' : 'Red holds the zone');
    };
    this.stores.hud.subscribe(render);
    render();
    return root;
  }

  private controlsHint(): HTMLElement {
    return el(
      'p',
      { class: 'hint controls-hint' },
      'Move ',
      el('kbd', { text: 'W A S D' }),
      ' · aim with the mouse · fire ',
      el('kbd', { text: 'Click' }),
      ' or ',
      el('kbd', { text: 'Space' }),
      ' · dash ',
      el('kbd', { text: 'Shift' }),
      ' · second person: ',
      el('kbd', { text: 'I J K L' }),
      ', ',
      el('kbd', { text: 'U O' }),
      ' turn, ',
      el('kbd', { text: 'Enter' }),
      ' fires',
    );
  }

  private setOpponent(label: string, colour: string): void {
    setText(this.opponentName, label);
    this.swatch.style.background = colour;
    this.root.style.setProperty('--opponent', colour);
  }

  /** Play one episode with the participant on blue; resolves when it ends. */
  async play(setup: EpisodeSetup): Promise<EpisodeResult> {
    this.mode = 'play';
    this.config = studyGameConfig(setup.episodeSeconds);
    this.setOpponent(setup.badge.label, setup.badge.colour);
    const person = setup.teammate === 'person';
    this.stores.app.setState({
      blue: 'human',
      red: setup.opponent,
      // With a second person, the AI teammate's decisions are overridden for both agents.
      teammate: person ? 'heuristic' : setup.teammate,
      twoPlayers: person,
      seed: setup.seed,
      speed: 1,
      paused: false,
      error: null,
    });
    this.input.setPlayers(person ? 2 : 1);
    await this.session.start();
    const error = this.stores.app.getState().error;
    if (error || !this.session.currentMatch) throw new Error(error ?? 'the episode could not start');
    const ended = new Promise<void>((done) => (this.onEnd = done));
    this.input.active = true;
    (document.activeElement as HTMLElement | null)?.blur();
    this.arena.focus({ preventScroll: true });
    await ended;
    this.input.active = false;
    const match = this.session.currentMatch;
    const replay = match.replay();
    const summary = match.summary();
    return { outcome: summary.winner, replay, summary };
  }

  /** Play a replay for an observer; resolves when it has played to its end. */
  async watch(replay: ReplayFile): Promise<void> {
    this.mode = 'watch';
    this.input.active = false;
    this.setOpponent('Red team', '#ff5c5c');
    this.stores.app.setState({ speed: 1, paused: false });
    if (!this.session.loadReplay(JSON.stringify(replay), 'clip')) throw new Error(this.stores.app.getState().error ?? 'the clip could not be loaded');
    await new Promise<void>((done) => (this.onEnd = done));
  }
}
