/**
 * The participant's page at /study/<id>: consent, instructions, practice, the blocks
 * (play the episodes, then rate the team), the forced choice, background questions and
 * completion; or, in an observe study, the clips to watch and judge. The server says which
 * step comes next; the page only draws it, so a reload resumes where the participant was.
 * Everything a participant typed is set as text, never as HTML.
 *
 * This module is the page's frame (header, progress, notice, the test hook) and picks the
 * step; each step draws itself from its own module, given a StudyPage (page.ts).
 */
import type { Platform } from '../../teams';
import { el, setHidden } from '../dom';
import { ApiError, type PublicStudy, type ParticipantState, type Step, StudyApi } from './api';
import { StudyArena } from './arena';
import { renderClip } from './clip';
import { renderDone } from './completion';
import { renderConsent } from './consent';
import { renderEpisodeIntro } from './episode';
import { renderInstructions } from './instructions';
import { type StudyPage, message, showError } from './page';
import { studyProgress } from './progress';
import { renderBackground, renderChoice } from './questionnaire';
import { renderRatings } from './ratings';

export interface StudyHook {
  readonly ready: boolean;
  step(): string;
  participant(): number | null;
}

declare global {
  interface Window {
    __hillmindStudy?: StudyHook;
  }
}

/** The line above the progress bar: where the participant is. */
function progressText(study: PublicStudy, step: Step): string {
  switch (step.kind) {
    case 'practice':
      return 'Practice';
    case 'play':
      return `Block ${step.block + 1} of ${study.blocks} · episode ${step.episode + 1} of ${step.episodes}`;
    case 'rate':
      return `Block ${step.block + 1} of ${study.blocks} · questions`;
    case 'clip':
      return `Clip ${step.clip + 1} of ${step.clips}`;
    case 'choice':
    case 'background':
      return 'Final questions';
    case 'done':
      return 'Finished';
    default:
      return '';
  }
}

/** Draw a state's step. */
function renderStep(page: StudyPage, step: Step): void {
  switch (step.kind) {
    case 'instructions':
      return renderInstructions(page);
    case 'practice':
    case 'play':
      return renderEpisodeIntro(page, step);
    case 'rate':
      return renderRatings(page, step);
    case 'choice':
      return renderChoice(page, step);
    case 'background':
      return renderBackground(page);
    case 'clip':
      return void renderClip(page, step);
    case 'done':
      return renderDone(page, step);
  }
}

/** `onStudy` is told the study once it is read (the page's platform learns from it where the model runs). */
export async function participantPage(root: HTMLElement, studyId: string, platform: Platform, onStudy: (study: PublicStudy) => void = () => undefined): Promise<void> {
  const api = new StudyApi(studyId);
  const params = new URLSearchParams(location.search);
  const arena = new StudyArena(platform);
  const card = el('section', { class: 'study-card', id: 'study-card' });
  const progress = el('span', { class: 'study-progress', id: 'study-progress' });
  const barFill = el('div', { class: 'study-bar-fill' });
  const bar = el('div', { class: 'study-bar', id: 'study-bar', role: 'progressbar', 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': 0, 'aria-label': 'Progress through the study' }, barFill);
  const title = el('span', { class: 'tagline', id: 'study-title' });
  const notice = el('p', { class: 'study-notice', id: 'study-notice', role: 'status', hidden: true });
  root.append(
    el('header', { class: 'topbar' }, el('div', { class: 'brand' }, el('span', { class: 'logo', text: 'Hillmind' }), title), el('div', { class: 'study-where' }, progress, bar)),
    notice,
    card,
    arena.root,
  );
  arena.park(true);
  arena.mount(params.get('renderer') === 'canvas');

  let stepKind = 'loading';
  let participant: number | null = null;
  window.__hillmindStudy = { ready: true, step: () => stepKind, participant: () => participant };

  const setCard = (...children: (Node | null)[]) => {
    card.replaceChildren(...children.filter((c): c is Node => c !== null));
    card.hidden = false;
  };
  const fatal = (text: string) => {
    stepKind = 'error';
    arena.park(true);
    setCard(el('h1', { text: 'Something went wrong' }), el('p', { class: 'form-error', id: 'fatal-error', role: 'alert', text }));
  };

  let study: PublicStudy;
  try {
    const info = await api.study();
    study = info.study;
    if (!info.open && !api.hasSession) {
      fatal('This study is closed to new participants. Thank you for your interest.');
      return;
    }
  } catch (err) {
    fatal(err instanceof ApiError && err.status === 404 ? 'There is no such study. Check the link you were given.' : message(err));
    return;
  }
  onStudy(study);
  document.title = study.title;
  title.textContent = study.title;

  const showProgress = (step: Step) => {
    progress.textContent = progressText(study, step);
    const { done, total } = studyProgress(study, step);
    const percent = total > 0 ? Math.round((100 * done) / total) : 0;
    barFill.style.width = `${percent}%`;
    bar.setAttribute('aria-valuenow', String(percent));
    bar.title = `${percent}% done`;
  };

  const page: StudyPage = {
    study,
    api,
    arena,
    params,
    card,
    notice,
    setStepKind: (kind) => {
      stepKind = kind;
    },
    setCard,
    fatal,
    render: (state: ParticipantState) => {
      participant = state.participant;
      stepKind = state.step.kind;
      showProgress(state.step);
      notice.textContent = state.notice ?? '';
      setHidden(notice, !state.notice);
      arena.park(true);
      renderStep(page, state.step);
    },
    submit: async (button, line, action) => {
      button.disabled = true;
      line.hidden = true;
      try {
        page.render(await action());
      } catch (err) {
        button.disabled = false;
        showError(line, message(err));
        if (err instanceof ApiError && err.status === 409) {
          // Another tab moved on: show where the session is now.
          setTimeout(() => void api.state().then(page.render, () => undefined), 1500);
        }
      }
    },
  };

  if (api.hasSession) {
    try {
      page.render(await api.state());
      return;
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 401)) return fatal(message(err));
      api.forget();
    }
  }
  renderConsent(page);
}
