/**
 * The practice round and the blocks' episodes: the card before each (which team, how to
 * play, whether a left episode restarts), then the episode in the arena. The server
 * records the start once the match is ready, so from then on a reload is a restart; an
 * episode left early is reported with what was played. The result is saved before the
 * participant may go on, with a retry when saving fails.
 */
import { ABANDONED_REPLAY_MAX } from '../../survey/limits';
import { el, setHidden } from '../dom';
import { ApiError, type ParticipantState, type Step } from './api';
import type { EpisodeResult } from './arena';
import { type StudyPage, errorLine, message, showError, swatch } from './page';

type EpisodeStep = Extract<Step, { kind: 'practice' | 'play' }>;

export function renderEpisodeIntro(page: StudyPage, step: EpisodeStep): void {
  const { study, api } = page;
  const start = el('button', { type: 'button', class: 'primary', id: 'episode-start', text: step.kind === 'practice' ? 'Start the practice round' : 'Start the episode' }) as HTMLButtonElement;
  const line = errorLine();
  const parts: (Node | null)[] = [];
  if (step.kind === 'practice') {
    parts.push(
      el('h1', { text: 'Practice round' }),
      el('p', { text: 'Try the controls in one short episode. It does not count, and nothing is asked about it.' }),
    );
  } else if (step.episode === 0) {
    parts.push(
      el('h1', {}, swatch(step.badge.colour), `Block ${step.block + 1} of ${study.blocks}: ${step.badge.label}`),
      el('p', { text: `You will now play ${step.episodes} episode${step.episodes > 1 ? 's' : ''} against ${step.badge.label}. Afterwards we will ask you about this team.` }),
    );
  } else {
    parts.push(el('h1', {}, swatch(step.badge.colour), `Episode ${step.episode + 1} of ${step.episodes} against ${step.badge.label}`));
  }
  parts.push(
    study.teammate === 'person'
      ? el('p', { class: 'hint', text: 'You play blue with a second person at this computer (I J K L to move, U O to turn, Enter to fire).' })
      : el('p', { class: 'hint', text: 'You play the blue agent marked YOU; your teammate is marked ALLY.' }),
  );
  if (step.restarts.used > 0) {
    // The episode was left before its end (a reload, a closed tab): it starts again from the beginning.
    const left = step.restarts.allowed === null ? null : step.restarts.allowed - step.restarts.used;
    parts.push(
      el('p', {
        class: 'study-restart',
        id: 'episode-restart',
        text: `This episode was left before its end, so it starts again from the beginning.${left === null ? '' : left > 0 ? ` If it is left again it can be restarted ${left === 1 ? 'once more' : `${left} more times`}.` : ' If it is left again, it will not be played.'}`,
      }),
    );
  }
  const actions = el('div', { class: 'actions' });
  if (step.kind === 'practice') {
    const skip = el('button', { type: 'button', class: 'ghost', id: 'practice-skip', text: 'Skip the practice' }) as HTMLButtonElement;
    skip.addEventListener('click', () => void page.submit(skip, line, () => api.skipPractice()));
    actions.append(skip);
  }
  actions.append(start);
  start.addEventListener('click', () => void playEpisode(page, step));
  page.setCard(...parts, line, actions);
}

async function playEpisode(page: StudyPage, step: EpisodeStep): Promise<void> {
  const { api, arena, card, notice } = page;
  page.setStepKind(step.kind === 'practice' ? 'practice-playing' : 'playing');
  card.hidden = true;
  setHidden(notice, true);
  arena.park(false);
  /** The attempt under way, once the server has recorded its start. */
  let attempt = 0;
  let skipped: ParticipantState | null = null;
  // The server records the start once the match is ready: from then on, a reload is a restart.
  const begin = async () => {
    // Named by its number, so a retry after a lost answer (the "Try again" below) is not counted as a restart.
    const begun = await api.startAttempt({ block: step.block, episode: step.episode, attempt: step.attempt + 1 });
    const now = begun.step;
    if ((now.kind !== 'play' && now.kind !== 'practice') || now.block !== step.block || now.episode !== step.episode) {
      // Left too often before: the episode is skipped.
      skipped = begun;
      return false;
    }
    attempt = now.attempt;
    return true;
  };
  const leave = () => {
    const soFar = arena.episodeSoFar();
    if (!soFar || attempt === 0) return;
    const replayFits = JSON.stringify(soFar.replay).length <= ABANDONED_REPLAY_MAX;
    api.abandon({ block: step.block, episode: step.episode, attempt, ticks: soFar.ticks, ...(replayFits ? { replay: soFar.replay } : {}) });
  };
  window.addEventListener('pagehide', leave);
  let result;
  try {
    result = await arena.play(step, begin);
  } catch (err) {
    window.removeEventListener('pagehide', leave);
    arena.park(true);
    if (err instanceof ApiError && err.status === 409) {
      // Another tab moved on: show where the session is now.
      return void api.state().then(page.render, (e: unknown) => page.fatal(message(e)));
    }
    const retry = el('button', { type: 'button', class: 'primary', id: 'episode-retry', text: 'Try again' });
    retry.addEventListener('click', () => renderEpisodeIntro(page, step));
    page.setCard(el('h1', { text: 'The episode could not start' }), el('p', { class: 'form-error', role: 'alert', text: message(err) }), el('div', { class: 'actions' }, retry));
    return;
  }
  window.removeEventListener('pagehide', leave);
  if (!result) return page.render(skipped!);
  await showResult(page, step, result);
}

/** The episode's outcome, and its replay saved before the participant goes on (with a retry). */
async function showResult(page: StudyPage, step: EpisodeStep, result: EpisodeResult): Promise<void> {
  const { api, card } = page;
  const outcome =
    result.outcome === 'draw' ? 'Draw: time ran out.' : result.outcome === 'blue' ? 'You won: your team took this episode.' : `You lost: ${step.badge.label} took this episode.`;
  const next = el('button', { type: 'button', class: 'primary', id: 'episode-next', text: 'Continue', disabled: true }) as HTMLButtonElement;
  const line = errorLine();
  const saving = el('p', { class: 'hint', id: 'episode-saving', text: 'Saving…' });
  page.setStepKind('episode-result');
  card.hidden = false;
  page.setCard(el('h2', { id: 'episode-outcome', text: outcome }), saving, line, el('div', { class: 'actions' }, next));
  let nextState: ParticipantState | null = null;
  const send = async () => {
    next.disabled = true;
    line.hidden = true;
    try {
      nextState = await api.episode({ block: step.block, episode: step.episode, replay: result.replay, summary: result.summary });
      saving.textContent = 'Saved.';
      next.textContent = 'Continue';
    } catch (err) {
      saving.textContent = 'Not saved yet.';
      showError(line, `${message(err)}. Press the button to try again.`);
      next.textContent = 'Try saving again';
    }
    next.disabled = false;
  };
  next.addEventListener('click', () => {
    if (nextState) page.render(nextState);
    else void send();
  });
  await send();
}
