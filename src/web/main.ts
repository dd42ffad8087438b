/**
 * The page: panels around the arena. Query options (for links and automated checks):
 * ?renderer=canvas forces the Canvas renderer; ?blue=, ?red=, ?teammate=, ?seed=, ?speed=,
 * ?players= preset the choices; ?autostart=1 starts the match at once; ?intro=0 hides the
 * intro. A value the page cannot use is named in the page (choices.ts reads them).
 */
import { type PageOptions, readPageOptions } from './choices';
import { el, setHidden, setText } from './dom';
import { createGame, rendererName } from './game';
import { installHook } from './hook';
import { BrowserInput } from './input';
import { type CanvasSize, canvasSize } from './layout';
import { agentsPanel } from './panels/agents';
import { arenaNotices } from './panels/arenaNotices';
import { feedPanel } from './panels/feed';
import { modelPaceNotice } from './panels/modelPaceNotice';
import { controlsPanel, introPanel } from './panels/intro';
import { replayPanel } from './panels/replay';
import { resultOverlay } from './panels/result';
import { scoreboard } from './panels/scoreboard';
import { setupPanel } from './panels/setup';
import { strategistPanel } from './panels/strategist';
import { webPlatform } from './platform';
import { MatchSession } from './matchSession';
import { SoundCues } from './sound';
import { type AppState, createStores, nextSpeed } from './stores';
import './styles.css';

const INTRO_KEY = 'hillmind.introHidden';
const SOUND_KEY = 'hillmind.sound';

function stored(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    // storage may be unavailable: the defaults then apply every time
    return null;
  }
}

function remember(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // not remembered
  }
}

/** The address's choices over what this browser remembers (the intro hidden, sound off). */
function initialChoices(options: PageOptions): Partial<AppState> {
  return {
    introOpen: stored(INTRO_KEY) !== '1',
    sound: stored(SOUND_KEY) !== '0',
    ...options.presets,
  };
}

function main(): void {
  const params = new URLSearchParams(location.search);
  const options = readPageOptions(params);
  const stores = createStores(initialChoices(options));
  const root = document.getElementById('app')!;

  const errorText = el('span', { id: 'error-text' });
  const dismiss = el('button', { type: 'button', class: 'ghost', text: 'Dismiss' });
  const errorBanner = el('div', { class: 'error-banner', id: 'error', role: 'alert', hidden: true }, el('strong', { text: 'Problem: ' }), errorText, dismiss);
  dismiss.addEventListener('click', () => stores.app.setState({ error: null }));
  stores.app.subscribe((s) => {
    setHidden(errorBanner, !s.error);
    setText(errorText, s.error ?? '');
  });
  const showError = (message: string) => stores.app.setState({ error: message });
  if (options.problems.length > 0) {
    const held = options.autostart ? ' The match was not started: check the choices, then press Start.' : '';
    showError(`The address asks for what the page cannot do: ${options.problems.join('; ')}. The page shows its own choices for these instead.${held}`);
  }
  window.addEventListener('error', (e) => showError(e.message || 'an unexpected error'));
  window.addEventListener('unhandledrejection', (e) => showError(e.reason instanceof Error ? e.reason.message : String(e.reason)));

  const arena = el('div', { class: 'arena', id: 'arena', tabindex: 0, 'aria-label': 'Arena' });
  const input: BrowserInput = new BrowserInput(arena, (): CanvasSize => canvasSize(session.world.config));
  // Trained skills and the flat policy load from the server's models/ on first use.
  const platform = webPlatform('models/', options.llm);
  const sound = new SoundCues(() => stores.app.getState().sound);
  const session: MatchSession = new MatchSession(stores, platform, input, { onCue: (cue) => sound.play(cue) });
  const helpToggle = el('button', { type: 'button', class: 'ghost', id: 'help-toggle', text: 'How to play' });
  helpToggle.addEventListener('click', () => stores.app.setState({ introOpen: !stores.app.getState().introOpen }));
  stores.app.subscribe((s, before) => {
    if (s.introOpen !== before.introOpen) remember(INTRO_KEY, s.introOpen ? '0' : '1');
    if (s.sound !== before.sound) remember(SOUND_KEY, s.sound ? '1' : '0');
  });

  const board = scoreboard(stores);
  const center = el('section', { class: 'center', id: 'arena-column' });
  const strategists = strategistPanel(stores);
  /**
   * The scoreboard and the arena in full view, however small the window, and the
   * strategists too where the layout puts them under the arena: what a match is watched in.
   */
  const showArena = () => {
    const box = center.getBoundingClientRect();
    const below = strategists.getBoundingClientRect();
    const strategistsUnder = below.top >= box.bottom;
    const bottom = strategistsUnder ? below.bottom : arena.getBoundingClientRect().bottom;
    if (box.top < 0 || bottom > window.innerHeight) center.scrollIntoView({ block: 'start' });
  };
  const start = async () => {
    const app = stores.app.getState();
    input.setPlayers(app.twoPlayers ? 2 : 1);
    await session.start();
    if (stores.app.getState().mode !== 'live') return;
    showArena();
    const human = session.snapshotState().humanAgents.length > 0;
    input.active = human;
    if (human) {
      // Keys go to the game now, not to the button that started it.
      (document.activeElement as HTMLElement | null)?.blur();
      arena.focus({ preventScroll: true });
    }
  };
  const playAgain = () => {
    // Same teams, the next seed: another arena and zone, the same matchup.
    stores.app.setState({ seed: (stores.app.getState().seed + 1) % 0x1_0000_0000 });
    void start();
  };
  const saveReplay = () => {
    const text = session.replayText();
    if (!text) return;
    const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
    const a = el('a', { href: url, download: session.replayFileName() });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };
  stores.app.subscribe((s, before) => {
    if (s.mode !== before.mode && s.mode === 'replay') input.active = false;
  });
  // At the end the keys are the page's again (Enter on "Play again", scrolling).
  stores.hud.subscribe((h, before) => {
    if (h.outcome && !before.outcome) input.active = false;
  });
  // A replay file dropped anywhere on the page plays.
  window.addEventListener('dragover', (e) => {
    if (e.dataTransfer?.types.includes('Files')) e.preventDefault();
  });
  window.addEventListener('drop', (e) => {
    const file = e.dataTransfer?.files[0];
    if (!file) return;
    e.preventDefault();
    void file.text().then((text) => session.loadReplay(text, file.name));
  });

  const status = el('div', { class: 'status-line', id: 'status-line' });
  const watchAgain = () => {
    session.seek(0);
    session.setPaused(false);
  };
  center.append(board, el('div', { class: 'arena-wrap' }, arena, arenaNotices(stores), modelPaceNotice(stores), resultOverlay(stores, { playAgain, saveReplay, watchAgain })), status);
  root.append(
    el(
      'header',
      { class: 'topbar' },
      el('div', { class: 'brand' }, el('span', { class: 'logo', text: 'Hillmind' }), el('span', { class: 'tagline', text: '2v2 King of the Hill · build and judge game AI' })),
      helpToggle,
    ),
    errorBanner,
    introPanel(stores),
    el(
      'main',
      { class: 'layout' },
      el('aside', { class: 'side left' }, setupPanel(stores, session, platform, { start: () => void start(), saveReplay }), replayPanel(stores, session), controlsPanel()),
      center,
      el('aside', { class: 'side right' }, agentsPanel(stores), strategists, feedPanel(stores)),
    ),
  );

  window.addEventListener('keydown', (e) => {
    const t = e.target as HTMLElement | null;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA')) return;
    if (e.code === 'KeyP') session.togglePause();
    else if (e.code === 'Period') session.stepOnce();
    else if (e.code === 'BracketLeft' || e.code === 'BracketRight') {
      stores.app.setState({ speed: nextSpeed(stores.app.getState().speed, e.code === 'BracketLeft' ? -1 : 1) });
    }
  });

  let game: ReturnType<typeof createGame> | null = null;
  try {
    game = createGame(arena, session, { canvas: options.canvas });
  } catch (err) {
    showError(`The arena could not be drawn: ${err instanceof Error ? err.message : String(err)}`);
  }
  const renderer = () => (game ? rendererName(game) : 'none');
  installHook(session, renderer, platform);
  const refreshStatus = () => {
    const s = stores.app.getState();
    const human = session.snapshotState().humanAgents.length;
    const what = s.mode === 'replay' ? 'Watching a replay' : s.mode === 'live' ? (human ? 'You are playing blue' : 'Watching a match') : 'Choose a matchup and press Start';
    setText(status, `${what} · ${s.speed}x · seed ${session.world.seed} · ${renderer()} renderer`);
  };
  stores.app.subscribe(refreshStatus);
  setTimeout(refreshStatus, 500);
  refreshStatus();

  if (options.autostart && options.problems.length === 0) void start();
}

main();
