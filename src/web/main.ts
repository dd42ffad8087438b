/**
 * The page: panels around the arena. Query options (for links and automated checks):
 * ?renderer=canvas forces the Canvas renderer; ?blue=, ?red=, ?teammate=, ?seed=, ?speed=
 * preset the choices; ?autostart=1 starts the match at once; ?intro=0 hides the intro.
 */
import { isTeamId } from '../teams';
import { el, setHidden, setText } from './dom';
import { createGame, rendererName } from './game';
import { installHook } from './hook';
import { BrowserInput } from './input';
import { type CanvasSize, canvasSize } from './layout';
import { agentsPanel } from './panels/agents';
import { feedPanel } from './panels/feed';
import { controlsPanel, introPanel } from './panels/intro';
import { replayPanel } from './panels/replay';
import { scoreboard } from './panels/scoreboard';
import { setupPanel } from './panels/setup';
import { strategistPanel } from './panels/strategist';
import { webPlatform } from './platform';
import { GameSession } from './session';
import { type AppState, createStores, isSpeed, nextSpeed } from './stores';
import './styles.css';

const INTRO_KEY = 'hillmind.introHidden';

function presets(params: URLSearchParams): Partial<AppState> {
  const out: { -readonly [K in keyof AppState]?: AppState[K] } = {};
  const blue = params.get('blue');
  const red = params.get('red');
  const teammate = params.get('teammate');
  if (blue && isTeamId(blue)) out.blue = blue;
  if (red && isTeamId(red)) out.red = red;
  if (teammate && isTeamId(teammate)) out.teammate = teammate;
  const seed = Number(params.get('seed'));
  if (params.has('seed') && Number.isInteger(seed) && seed >= 0) out.seed = seed;
  const speed = Number(params.get('speed'));
  if (isSpeed(speed)) out.speed = speed;
  if (params.get('players') === '2') out.twoPlayers = true;
  let introHidden = false;
  try {
    introHidden = localStorage.getItem(INTRO_KEY) === '1';
  } catch {
    // storage may be unavailable; the intro then shows every time
  }
  out.introOpen = params.get('intro') === '0' ? false : !introHidden;
  return out;
}

function main(): void {
  const params = new URLSearchParams(location.search);
  const stores = createStores(presets(params));
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
  window.addEventListener('error', (e) => showError(e.message || 'an unexpected error'));
  window.addEventListener('unhandledrejection', (e) => showError(e.reason instanceof Error ? e.reason.message : String(e.reason)));

  const arena = el('div', { class: 'arena', id: 'arena', tabindex: 0, 'aria-label': 'Arena' });
  const input: BrowserInput = new BrowserInput(arena, (): CanvasSize => canvasSize(session.world.config));
  // Trained skills and the flat policy load from the server's models/ on first use.
  const platform = webPlatform();
  const session: GameSession = new GameSession(stores, platform, input);
  const helpToggle = el('button', { type: 'button', class: 'ghost', id: 'help-toggle', text: 'How to play' });
  helpToggle.addEventListener('click', () => stores.app.setState({ introOpen: !stores.app.getState().introOpen }));
  stores.app.subscribe((s, before) => {
    if (s.introOpen === before.introOpen) return;
    try {
      localStorage.setItem(INTRO_KEY, s.introOpen ? '0' : '1');
    } catch {
      // not remembered
    }
  });

  const start = async () => {
    const app = stores.app.getState();
    input.setPlayers(app.twoPlayers ? 2 : 1);
    await session.start();
    const human = session.snapshotState().humanAgents.length > 0;
    input.active = human;
    if (human) {
      // Keys go to the game now, not to the button that started it.
      (document.activeElement as HTMLElement | null)?.blur();
      arena.focus({ preventScroll: true });
    }
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

  const board = scoreboard(stores);
  const status = el('div', { class: 'status-line', id: 'status-line' });
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
      el('section', { class: 'center' }, board, el('div', { class: 'arena-wrap' }, arena), status),
      el('aside', { class: 'side right' }, agentsPanel(stores), strategistPanel(stores), feedPanel(stores)),
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
    game = createGame(arena, session, { canvas: params.get('renderer') === 'canvas' });
  } catch (err) {
    showError(`The arena could not be drawn: ${err instanceof Error ? err.message : String(err)}`);
  }
  const renderer = () => (game ? rendererName(game) : 'none');
  installHook(session, renderer);
  const refreshStatus = () => {
    const s = stores.app.getState();
    const human = session.snapshotState().humanAgents.length;
    const what = s.mode === 'replay' ? 'Watching a replay' : s.mode === 'live' ? (human ? 'You are playing blue' : 'Watching a match') : 'Choose a matchup and press Start';
    setText(status, `${what} · ${s.speed}x · seed ${session.world.seed} · ${renderer()} renderer`);
  };
  stores.app.subscribe(refreshStatus);
  setTimeout(refreshStatus, 500);
  refreshStatus();

  if (params.get('autostart') === '1') void start();
}

main();
