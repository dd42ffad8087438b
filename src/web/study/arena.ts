/**
 * The arena on the study page: the product's MatchSession, Phaser scene and human controls,
 * with blinded labels (YOU and ALLY over the participant's team, nothing over the
 * opponents, B1/B2/R1/R2 in replays) and the study's game config. The opponent is drawn
 * in its badge colour and named by its label everywhere (agents, zone, status line), so
 * nothing hints at the product's red team. It plays one episode at a time, after a 3-2-1,
 * and says when it ends, or plays a replay for an observer.
 */
import type * as Phaser from 'phaser';
import type { MatchSummary, ReplayFile } from '../../match';
import { DEFAULT_CONFIG, type GameConfig, type World } from '../../sim';
import type { Platform } from '../../teams';
import { studyGameConfig } from '../../survey/config';
import { clock, resultText, zoneText } from '../describe';
import { el, setText } from '../dom';
import { createGame, rendererName } from '../game';
import { installHook } from '../hook';
import { BrowserInput } from '../input';
import { canvasSize } from '../layout';
import { DEFAULT_PALETTE, type TeamPalette, cssColour, paletteAgainst, parseHexColour } from '../palette';
import { arenaNotices } from '../panels/arenaNotices';
import { MatchSession } from '../matchSession';
import { SoundCues } from '../sound';
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

export class StudyArena {
  readonly root: HTMLElement;
  readonly stores: Stores;
  readonly session: MatchSession;
  private readonly input: BrowserInput;
  private readonly arena: HTMLElement;
  private game: Phaser.Game | null = null;
  private config: GameConfig = DEFAULT_CONFIG;
  private mode: 'play' | 'watch' = 'play';
  private onEnd: (() => void) | null = null;
  private readonly opponentName = el('div', { class: 'sb-name', id: 'opponent-name' });
  private readonly swatch = el('span', { class: 'swatch' });
  private palette: TeamPalette = DEFAULT_PALETTE;
  private readonly hint = el('p', { class: 'hint controls-hint', id: 'controls-hint' });

  constructor(private readonly platform: Platform) {
    // Sound starts off in a study: every participant meets the same conditions unless they choose otherwise.
    this.stores = createStores({ blue: 'human', introOpen: false, sound: false });
    this.arena = el('div', { class: 'arena', id: 'arena', tabindex: 0, 'aria-label': 'Arena' });
    this.input = new BrowserInput(this.arena, () => canvasSize(this.session.world.config));
    const sound = new SoundCues(() => this.stores.app.getState().sound);
    this.session = new MatchSession(this.stores, platform, this.input, {
      config: () => this.config,
      labels: (world, humans) => this.labels(world, humans),
      palette: () => this.palette,
      onCue: (cue) => sound.play(cue),
    });
    this.root = el(
      'section',
      { class: 'study-arena', id: 'study-arena' },
      this.scoreboard(),
      el('div', { class: 'arena-wrap' }, this.arena, arenaNotices(this.stores)),
      el('div', { class: 'study-arena-foot' }, this.hint, this.soundToggle()),
    );
    this.showControls(false);
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
    installHook(this.session, () => (this.game ? rendererName(this.game) : 'none'), this.platform);
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
    const time = el('span', { class: 'sb-clock mono', id: 'clock' });
    const length = el('span', { class: 'sb-length mono', id: 'clock-length' });
    const status = el('div', { class: 'sb-zone', id: 'zone-status' });
    const blueName = el('div', { class: 'sb-name', id: 'own-name', text: 'Your team (blue)' });
    const root = el(
      'section',
      { class: 'scoreboard', id: 'scoreboard' },
      el('div', { class: 'sb-side blue' }, blueName, el('div', { class: 'sb-bar' }, blueFill), blueValue),
      el('div', { class: 'sb-center' }, el('div', { class: 'sb-time' }, time, length), status),
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
      // The names the screen uses for the sides: the opponent by its label while playing.
      const names: [string, string] = this.mode === 'watch' ? ['Blue', 'Red'] : ['Your team', this.opponentName.textContent ?? 'The other team'];
      if (h.outcome) {
        setText(time, resultText(h.outcome, this.mode === 'play', names));
        setText(length, '');
        setText(status, `after ${clock(h.tick, h.tickHz)}`);
        return;
      }
      setText(time, clock(h.tick, h.tickHz));
      setText(length, `/ ${clock(h.episodeTicks, h.tickHz)}`);
      setText(status, h.countdown > 0 ? 'Get ready' : zoneText(h.zoneStatus, names));
      status.className = `sb-zone ${this.mode === 'watch' ? h.zoneStatus : h.zoneStatus === 'red' ? 'opponent' : h.zoneStatus}`;
    };
    this.stores.hud.subscribe(render);
    render();
    return root;
  }

  /** The keys for who plays at this computer: the second person's only when the study has one. */
  private showControls(secondPerson: boolean): void {
    const kbd = (text: string) => el('kbd', { text });
    this.hint.replaceChildren(
      secondPerson ? 'You: ' : 'Move ',
      kbd('W A S D'),
      secondPerson ? ' move · aim with the mouse · fire ' : ' · aim with the mouse · fire ',
      kbd('Click'),
      ' or ',
      kbd('Space'),
      ' · dash ',
      kbd(secondPerson ? 'Left Shift' : 'Shift'),
      ...(secondPerson ? [' · second person: ', kbd('I J K L'), ' move, ', kbd('U O'), ' turn, ', kbd('Enter'), ' fires, ', kbd('Right Shift'), ' dashes'] : []),
    );
  }

  private soundToggle(): HTMLElement {
    const button = el('button', { type: 'button', class: 'ghost', id: 'sound-toggle' });
    const render = () => {
      const on = this.stores.app.getState().sound;
      setText(button, on ? 'Sound: on' : 'Sound: off');
      button.setAttribute('aria-pressed', String(on));
    };
    button.addEventListener('click', () => this.stores.app.setState({ sound: !this.stores.app.getState().sound }));
    this.stores.app.subscribe(render);
    render();
    return button;
  }

  private setOpponent(label: string, colour: string): void {
    setText(this.opponentName, label);
    this.swatch.style.background = colour;
    this.root.style.setProperty('--opponent', colour);
  }

  /** The opponent in its badge colour (the product's red when it has none we can read). */
  private usePalette(colour: string | null): void {
    const rgb = colour ? parseHexColour(colour) : null;
    this.palette = rgb === null ? DEFAULT_PALETTE : paletteAgainst(rgb);
    this.root.style.setProperty('--opponent', cssColour(this.palette.team[1]));
  }

  /** The arena in full view (it is sized to the window's height; the page may be scrolled). */
  private showArena(): void {
    const box = this.root.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) this.root.scrollIntoView({ block: 'start' });
  }

  /** Play one episode with the participant on blue; resolves when it ends. */
  /**
   * Play one episode with the participant on blue; resolves when it ends. `begin` runs once
   * the match is ready (models loaded) and before its countdown: the page records the
   * attempt there, so a start that fails to load costs no restart. When `begin` answers
   * false the episode is not played (null).
   */
  async play(setup: EpisodeSetup, begin: () => Promise<boolean>): Promise<EpisodeResult | null> {
    this.mode = 'play';
    this.config = studyGameConfig(setup.episodeSeconds);
    this.setOpponent(setup.badge.label, setup.badge.colour);
    this.usePalette(setup.badge.colour);
    const person = setup.teammate === 'person';
    this.showControls(person);
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
    // Held at the countdown's first second while the page records the start.
    this.session.setPaused(true);
    if (!(await begin())) return null;
    this.session.setPaused(false);
    const ended = new Promise<void>((done) => (this.onEnd = done));
    this.input.active = true;
    (document.activeElement as HTMLElement | null)?.blur();
    this.showArena();
    this.arena.focus({ preventScroll: true });
    await ended;
    this.input.active = false;
    const match = this.session.currentMatch;
    const replay = match.replay();
    const summary = match.summary();
    return { outcome: summary.winner, replay, summary };
  }

  /** The episode under way, as far as it got (for the page to say so when it is left), or null. */
  episodeSoFar(): { ticks: number; replay: ReplayFile } | null {
    const match = this.session.currentMatch;
    if (this.mode !== 'play' || !match || match.done) return null;
    return { ticks: match.world.tick, replay: match.replay() };
  }

  /** Play a replay for an observer; resolves when it has played to its end. */
  async watch(replay: ReplayFile): Promise<void> {
    this.mode = 'watch';
    this.input.active = false;
    this.setOpponent('Red team', '#ff5c5c');
    this.usePalette(null);
    this.stores.app.setState({ speed: 1, paused: false });
    if (!this.session.loadReplay(JSON.stringify(replay), 'clip')) throw new Error(this.stores.app.getState().error ?? 'the clip could not be loaded');
    this.showArena();
    await new Promise<void>((done) => (this.onEnd = done));
  }
}
