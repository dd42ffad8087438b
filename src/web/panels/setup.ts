/**
 * Matchup picker, seed, start; then pause, step, speed, sound and saving the match's
 * replay. A seed that is not one is said to be wrong where it was typed, and kept as
 * typed, so the person can see and fix it.
 */
import { HUMAN_TEAM_ID } from '../../teams/human';
import { PERSONAS, type Platform, parseTeamSpec, personaByName, teamAvailability, teamEntries } from '../../teams';
import { readSeed } from '../choices';
import { el, panel, setHidden, setText } from '../dom';
import type { MatchSession } from '../matchSession';
import { SPEEDS, type Stores, isSpeed } from '../stores';

/**
 * The guide to setting up a language model, linked where llm cannot play: the README's
 * section, the one place the settings are written out.
 */
export const LLM_GUIDE_URL = 'README.md#the-llm-strategist';

export interface SetupActions {
  start(): void;
  saveReplay(): void;
}

/** The teams, then each persona of the teams that take one (`bt-scripted:persona=cautious`), grouped. */
function teamOptions(select: HTMLSelectElement, ids: readonly string[], labels: Record<string, string> = {}): void {
  for (const entry of teamEntries()) {
    if (!ids.includes(entry.id)) continue;
    select.append(el('option', { value: entry.id, title: entry.description, text: labels[entry.id] ?? entry.id }));
  }
  for (const entry of teamEntries()) {
    if (!ids.includes(entry.id) || !entry.variantSchema?.shape.persona) continue;
    const group = el('optgroup', { label: `${entry.id} personas` });
    for (const p of PERSONAS) group.append(el('option', { value: `${entry.id}:persona=${p.name}`, title: p.description, text: `${entry.id} · ${p.name}` }));
    select.append(group);
  }
}

/** Show `value` in `select`, adding an option for a variant the lists do not hold (one from the address). */
function choose(select: HTMLSelectElement, value: string): void {
  if (![...select.options].some((o) => o.value === value)) select.append(el('option', { value, text: value }));
  select.value = value;
}

export function setupPanel(stores: Stores, session: MatchSession, platform: Platform, actions: SetupActions): HTMLElement {
  /** Why a team cannot play here (no model on the server, a missing trained model), by id. */
  const unavailable = new Map<string, string>();
  /** Teams that cannot play for want of a language model: two lines and the guide, not the settings (their reason is the option's tooltip). */
  const noLanguageModel = new Set<string>();
  const description = (name: string) => {
    const { id, settings } = parseTeamSpec(name);
    const why = noLanguageModel.has(id) ? undefined : unavailable.get(id);
    const persona = settings.persona ? personaByName(settings.persona) : undefined;
    return (teamEntries().find((e) => e.id === id)?.description ?? '') + (persona ? ` Persona ${persona.name}: ${persona.description}` : '') + (why ? ` Not available: ${why}` : '');
  };
  const llmHelp = (side: string) =>
    el(
      'p',
      { class: 'hint llm-help', id: `${side}-llm-help`, hidden: true },
      'No language model on this server.',
      el('br'),
      el('a', { href: LLM_GUIDE_URL, target: '_blank', rel: 'noopener', text: 'How to set one up' }),
    );
  const blueLlmHelp = llmHelp('blue');
  const redLlmHelp = llmHelp('red');
  const all = teamEntries().map((e) => e.id as string);
  const ai = all.filter((id) => id !== HUMAN_TEAM_ID);

  const blue = el('select', { id: 'blue-team', 'aria-label': 'Blue team' });
  teamOptions(blue, all, { [HUMAN_TEAM_ID]: 'human (you play)' });
  const blueInfo = el('p', { class: 'hint', id: 'blue-info' });
  const teammate = el('select', { id: 'teammate-team', 'aria-label': 'Your AI teammate' });
  teamOptions(teammate, ai);
  const twoPlayers = el('input', { type: 'checkbox', id: 'two-players' });
  const humanRow = el(
    'div',
    { class: 'human-options', id: 'human-options' },
    el('label', { class: 'field' }, el('span', { text: 'Your teammate' }), teammate),
    el('label', { class: 'check' }, twoPlayers, el('span', { text: 'A second person plays the other blue agent' })),
  );
  const red = el('select', { id: 'red-team', 'aria-label': 'Red team' });
  teamOptions(red, ai);
  const redInfo = el('p', { class: 'hint', id: 'red-info' });
  // Text, not type=number: a number field reports '' for "2.5e" and hides what was typed.
  const seed = el('input', { type: 'text', inputmode: 'numeric', id: 'seed', 'aria-label': 'Seed', 'aria-describedby': 'seed-problem', autocomplete: 'off' });
  const seedProblem = el('p', { class: 'field-problem', id: 'seed-problem', role: 'alert', hidden: true });
  /** The seed the field last showed from the store; the field keeps what the person typed until the store moves on. */
  let shownSeed = NaN;
  let seedWrong = false;
  const dice = el('button', { type: 'button', class: 'ghost', id: 'random-seed', title: 'A random seed', text: 'Random' });
  const start = el('button', { type: 'button', class: 'primary', id: 'start', text: 'Start match' });

  blue.addEventListener('change', () => stores.app.setState({ blue: blue.value }));
  red.addEventListener('change', () => stores.app.setState({ red: red.value }));
  teammate.addEventListener('change', () => stores.app.setState({ teammate: teammate.value }));
  twoPlayers.addEventListener('change', () => stores.app.setState({ twoPlayers: twoPlayers.checked }));
  seed.addEventListener('input', () => {
    const reading = readSeed(seed.value);
    seedWrong = !reading.ok;
    seed.setAttribute('aria-invalid', String(seedWrong));
    setHidden(seedProblem, reading.ok);
    setText(seedProblem, reading.ok ? '' : `${reading.problem[0]!.toUpperCase()}${reading.problem.slice(1)}.`);
    if (reading.ok) {
      shownSeed = reading.value;
      stores.app.setState({ seed: reading.value });
    }
    render();
  });
  dice.addEventListener('click', () => stores.app.setState({ seed: Math.floor(Math.random() * 100000) }));
  start.addEventListener('click', () => actions.start());

  // Playback.
  const pause = el('button', { type: 'button', id: 'pause', text: 'Pause' });
  const stepBtn = el('button', { type: 'button', id: 'step', text: 'Step', title: 'Play one tick (pauses)' });
  const speeds = el('div', { class: 'segmented', role: 'group', 'aria-label': 'Speed', id: 'speed' });
  const speedButtons = SPEEDS.map((s) => {
    const b = el('button', { type: 'button', 'data-speed': s, text: `${s}x` });
    b.addEventListener('click', () => stores.app.setState({ speed: s }));
    speeds.append(b);
    return b;
  });
  const save = el('button', { type: 'button', id: 'save-replay', text: 'Save replay' });
  const sound = el('button', { type: 'button', id: 'sound-toggle', 'aria-pressed': 'false' });
  sound.addEventListener('click', () => stores.app.setState({ sound: !stores.app.getState().sound }));
  const waitModel = el('button', {
    type: 'button',
    id: 'wait-model-toggle',
    'aria-pressed': 'false',
    title: 'The game holds while the language model answers, so at any speed it decides as often as the game asks',
  });
  waitModel.addEventListener('click', () => stores.app.setState({ waitForModel: !stores.app.getState().waitForModel }));
  /** A language model decides in the match on screen (its calls are in the strategist store). */
  const modelPlays = () => stores.strategist.getState().models.some((m) => m !== null);
  pause.addEventListener('click', () => session.togglePause());
  stepBtn.addEventListener('click', () => session.stepOnce());
  save.addEventListener('click', () => actions.saveReplay());

  const render = () => {
    const s = stores.app.getState();
    choose(blue, s.blue);
    choose(red, s.red);
    choose(teammate, s.teammate);
    twoPlayers.checked = s.twoPlayers;
    if (s.seed !== shownSeed) {
      // The store moved on (Random, Play again, the address): show its seed, and drop any complaint.
      shownSeed = s.seed;
      seed.value = String(s.seed);
      seedWrong = false;
      seed.setAttribute('aria-invalid', 'false');
      setHidden(seedProblem, true);
    }
    setHidden(humanRow, s.blue !== HUMAN_TEAM_ID);
    setText(blueInfo, description(s.blue));
    setText(redInfo, description(s.red));
    setHidden(blueLlmHelp, !noLanguageModel.has(parseTeamSpec(s.blue).id));
    setHidden(redLlmHelp, !noLanguageModel.has(parseTeamSpec(s.red).id));
    const running = s.mode === 'live' || s.mode === 'replay';
    start.disabled = s.mode === 'loading' || seedWrong;
    start.title = seedWrong ? 'Fix the seed first' : '';
    setText(start, s.mode === 'loading' ? 'Starting…' : s.mode === 'live' ? 'Restart match' : 'Start match');
    pause.disabled = !running || session.done;
    stepBtn.disabled = !running || session.done;
    setText(pause, s.paused ? 'Resume' : 'Pause');
    pause.classList.toggle('active', s.paused);
    for (const b of speedButtons) {
      const v = Number(b.dataset.speed);
      b.classList.toggle('active', isSpeed(v) && v === s.speed);
      b.setAttribute('aria-pressed', String(v === s.speed));
    }
    save.disabled = s.mode !== 'live';
    setText(sound, s.sound ? 'Sound: on' : 'Sound: off');
    sound.setAttribute('aria-pressed', String(s.sound));
    // Shown where a language model plays, and while waiting is on (the way back stays in reach).
    setHidden(waitModel, !s.waitForModel && !modelPlays());
    setText(waitModel, s.waitForModel ? 'Wait for the model: on' : 'Wait for the model: off');
    waitModel.setAttribute('aria-pressed', String(s.waitForModel));
  };
  stores.app.subscribe(render);
  // Mark the teams that cannot play here in the choosers, with why (for llm: how to configure a model).
  void Promise.all(
    teamEntries().map(async (entry) => {
      const availability = await teamAvailability(entry.id, platform);
      if (availability.ok) return;
      unavailable.set(entry.id, availability.reason);
      if (availability.needs.languageModel) noLanguageModel.add(entry.id);
      const label = availability.needs.languageModel ? `${entry.id} (not configured)` : `${entry.id} (not available)`;
      for (const option of [blue, teammate, red].flatMap((select) => [...select.options]).filter((o) => parseTeamSpec(o.value).id === entry.id)) {
        option.text = option.value === entry.id ? label : `${option.text} (not available)`;
        option.title = availability.reason;
      }
    }),
  ).then(render);
  stores.strategist.subscribe((s, before) => {
    if (s.models.some((m) => m !== null) !== before.models.some((m) => m !== null)) render();
  });
  // The done state lives in the hud; refresh the buttons when the match ends.
  stores.hud.subscribe((h, before) => {
    if (h.outcome !== before.outcome) render();
  });
  render();

  return el(
    'div',
    { class: 'stack' },
    panel(
      'Match',
      'match-panel',
      el('label', { class: 'field' }, el('span', { class: 'team-tag blue', text: 'Blue' }), blue),
      blueInfo,
      blueLlmHelp,
      humanRow,
      el('label', { class: 'field' }, el('span', { class: 'team-tag red', text: 'Red' }), red),
      redInfo,
      redLlmHelp,
      el('div', { class: 'field seed-row' }, el('label', { for: 'seed', text: 'Seed' }), seed, dice),
      seedProblem,
      start,
    ),
    panel(
      'Playback',
      'playback-panel',
      el('div', { class: 'row' }, pause, stepBtn),
      el('div', { class: 'field' }, el('span', { text: 'Speed' }), speeds),
      el('div', { class: 'row' }, save, sound),
      waitModel,
    ),
  );
}
