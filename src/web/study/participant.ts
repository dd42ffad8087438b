/**
 * The participant's flow at /study/<id>: consent, instructions, practice, the blocks
 * (play the episodes, then rate the team), the forced choice, background questions and
 * completion; or, in an observe study, the clips to watch and judge. The server says which
 * step comes next; the page only draws it, so a reload resumes where the participant was.
 * Everything a participant typed is set as text, never as HTML.
 */
import type { ReplayFile } from '../../match';
import { ABANDONED_REPLAY_MAX } from '../../survey/limits';
import type { Platform } from '../../teams';
import { el, setHidden } from '../dom';
import { ApiError, type PublicStudy, type SessionState, type Step, StudyApi } from './api';
import { StudyArena } from './arena';
import { studyProgress } from './progress';

/** URL parameters of recruitment platforms, kept with the participant. */
const EXTERNAL_PARAMS = ['PROLIFIC_PID', 'STUDY_ID', 'SESSION_ID', 'workerId', 'assignmentId', 'hitId'] as const;

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

function paragraphs(text: string): HTMLElement[] {
  return text.split(/\n\s*\n/).map((p) => el('p', { text: p.trim() }));
}

function externalParams(): Record<string, string> {
  const params = new URLSearchParams(location.search);
  const out: Record<string, string> = {};
  for (const key of EXTERNAL_PARAMS) {
    const v = params.get(key);
    if (v) out[key] = v.slice(0, 128).replace(/[^\x20-\x7e]/g, '');
  }
  return out;
}

/** "Please answer every rating. Not answered yet: "A"; "B"." and the unanswered fieldsets marked (the first focused). */
function markMissing(form: HTMLFormElement, missing: readonly { readonly id: string; readonly prompt: string }[], what: string): string {
  for (const set of form.querySelectorAll<HTMLFieldSetElement>('fieldset[data-item]')) {
    const unanswered = missing.some((m) => m.id === set.dataset.item);
    set.classList.toggle('missing', unanswered);
    if (unanswered) set.setAttribute('aria-invalid', 'true');
    else set.removeAttribute('aria-invalid');
  }
  form.querySelector<HTMLInputElement>('fieldset.missing input')?.focus();
  return `Please answer every ${what}. Not answered yet: ${missing.map((m) => `"${m.prompt}"`).join('; ')}.`;
}

function swatch(colour: string): HTMLElement {
  const s = el('span', { class: 'swatch' });
  s.style.background = colour;
  return s;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export async function participantPage(root: HTMLElement, studyId: string, platform: Platform): Promise<void> {
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
  const errorLine = () => el('p', { class: 'form-error', role: 'alert', hidden: true });
  const showError = (line: HTMLElement, text: string) => {
    line.textContent = text;
    line.hidden = false;
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
  document.title = study.title;
  title.textContent = study.title;

  /** Send something to the server and go on to the state it answers, or show why not. */
  const submit = async (button: HTMLButtonElement, line: HTMLElement, action: () => Promise<SessionState>) => {
    button.disabled = true;
    line.hidden = true;
    try {
      render(await action());
    } catch (err) {
      button.disabled = false;
      showError(line, message(err));
      if (err instanceof ApiError && err.status === 409) {
        // Another tab moved on: show where the session is now.
        setTimeout(() => void api.state().then(render, () => undefined), 1500);
      }
    }
  };

  const progressText = (step: Step): string => {
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
  };

  const showProgress = (step: Step | null) => {
    const { done, total } = studyProgress(study, step);
    const percent = total > 0 ? Math.round((100 * done) / total) : 0;
    barFill.style.width = `${percent}%`;
    bar.setAttribute('aria-valuenow', String(percent));
    bar.title = `${percent}% done`;
  };

  function render(state: SessionState): void {
    participant = state.participant;
    const step = state.step;
    stepKind = step.kind;
    progress.textContent = progressText(step);
    showProgress(step);
    notice.textContent = state.notice ?? '';
    setHidden(notice, !state.notice);
    arena.park(true);
    switch (step.kind) {
      case 'instructions':
        return renderInstructions();
      case 'practice':
      case 'play':
        return renderEpisodeIntro(step);
      case 'rate':
        return renderRatings(step);
      case 'choice':
        return renderChoice(step);
      case 'background':
        return renderBackground();
      case 'clip':
        return void renderClip(step);
      case 'done':
        return renderDone(step);
    }
  }

  function renderConsent(): void {
    stepKind = 'consent';
    const agree = el('button', { type: 'button', class: 'primary', id: 'consent-agree', text: 'I agree' }) as HTMLButtonElement;
    const decline = el('button', { type: 'button', class: 'ghost', id: 'consent-decline', text: 'I do not agree' });
    const line = errorLine();
    const preview = params.get('assignmentId') === 'ASSIGNMENT_ID_NOT_AVAILABLE';
    if (preview) agree.disabled = true;
    agree.addEventListener('click', () => void submit(agree, line, () => api.start(externalParams())));
    decline.addEventListener('click', () => {
      stepKind = 'declined';
      setCard(el('h1', { text: 'Thank you' }), el('p', { text: 'You chose not to take part. Nothing was stored. You can close this page.' }));
    });
    setCard(
      el('h1', { text: 'Consent' }),
      el('div', { class: 'study-text', id: 'consent-text' }, ...paragraphs(study.consent)),
      el(
        'dl',
        { class: 'consent-details' },
        el('dt', { text: 'Questions about the study' }),
        el('dd', { id: 'consent-contact', text: study.contact }),
        el('dt', { text: 'Ethics approval' }),
        el('dd', { id: 'consent-ethics', text: study.ethics }),
      ),
      preview ? el('p', { class: 'form-error', text: 'This is a preview. Accept the task to begin.' }) : null,
      line,
      el('div', { class: 'actions' }, decline, agree),
    );
  }

  function renderInstructions(): void {
    const next = el('button', { type: 'button', class: 'primary', id: 'instructions-continue', text: study.practice && study.kind === 'play' ? 'Continue to the practice round' : 'Begin' }) as HTMLButtonElement;
    const line = errorLine();
    next.addEventListener('click', () => void submit(next, line, () => api.instructions()));
    setCard(el('h1', { text: 'Instructions' }), el('div', { class: 'study-text', id: 'instructions-text' }, ...paragraphs(study.instructions)), line, el('div', { class: 'actions' }, next));
  }

  function renderEpisodeIntro(step: Extract<Step, { kind: 'practice' | 'play' }>): void {
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
      skip.addEventListener('click', () => void submit(skip, line, () => api.skipPractice()));
      actions.append(skip);
    }
    actions.append(start);
    start.addEventListener('click', () => void playEpisode(step));
    setCard(...parts, line, actions);
  }

  async function playEpisode(step: Extract<Step, { kind: 'practice' | 'play' }>): Promise<void> {
    stepKind = step.kind === 'practice' ? 'practice-playing' : 'playing';
    card.hidden = true;
    setHidden(notice, true);
    arena.park(false);
    /** The attempt under way, once the server has recorded its start. */
    let attempt = 0;
    let skipped: SessionState | null = null;
    // The server records the start once the match is ready: from then on, a reload is a restart.
    const begin = async () => {
      const begun = await api.startAttempt({ block: step.block, episode: step.episode });
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
        return void api.state().then(render, (e: unknown) => fatal(message(e)));
      }
      const retry = el('button', { type: 'button', class: 'primary', id: 'episode-retry', text: 'Try again' });
      retry.addEventListener('click', () => renderEpisodeIntro(step));
      setCard(el('h1', { text: 'The episode could not start' }), el('p', { class: 'form-error', role: 'alert', text: message(err) }), el('div', { class: 'actions' }, retry));
      return;
    }
    if (!result) {
      window.removeEventListener('pagehide', leave);
      return render(skipped!);
    }
    window.removeEventListener('pagehide', leave);
    const outcome =
      result.outcome === 'draw' ? 'Draw: time ran out.' : result.outcome === 'blue' ? 'You won: your team took this episode.' : `You lost: ${step.badge.label} took this episode.`;
    const next = el('button', { type: 'button', class: 'primary', id: 'episode-next', text: 'Continue', disabled: true }) as HTMLButtonElement;
    const line = errorLine();
    const saving = el('p', { class: 'hint', id: 'episode-saving', text: 'Saving…' });
    stepKind = 'episode-result';
    card.hidden = false;
    setCard(el('h2', { id: 'episode-outcome', text: outcome }), saving, line, el('div', { class: 'actions' }, next));
    let nextState: SessionState | null = null;
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
      if (nextState) render(nextState);
      else void send();
    });
    await send();
  }

  function renderRatings(step: Extract<Step, { kind: 'rate' }>): void {
    const form = el('form', { class: 'study-form', id: 'ratings-form', novalidate: true });
    for (const item of study.likert) {
      const options = el('div', { class: 'likert-scale' });
      for (let v = 1; v <= item.points; v++) {
        const id = `likert-${item.id}-${v}`;
        options.append(el('label', { class: 'likert-point', for: id }, el('input', { type: 'radio', name: `likert-${item.id}`, id, value: v }), el('span', { text: String(v) })));
      }
      form.append(
        el(
          'fieldset',
          { class: 'likert-item', 'data-item': item.id },
          el('legend', { text: item.prompt }),
          el('div', { class: 'likert-row' }, el('span', { class: 'anchor', text: item.low }), options, el('span', { class: 'anchor', text: item.high })),
        ),
      );
    }
    for (const q of study.open) {
      form.append(
        el(
          'label',
          { class: 'open-question', for: `open-${q.id}` },
          el('span', { text: q.prompt + (q.required ? '' : ' (optional)') }),
          el('textarea', { id: `open-${q.id}`, name: `open-${q.id}`, rows: 4, maxlength: q.maxLength }),
        ),
      );
    }
    const line = errorLine();
    const send = el('button', { type: 'submit', class: 'primary', id: 'ratings-submit', text: 'Continue' }) as HTMLButtonElement;
    form.append(line, el('div', { class: 'actions' }, send));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const likert: Record<string, number> = {};
      for (const item of study.likert) {
        const checked = form.querySelector<HTMLInputElement>(`input[name="likert-${item.id}"]:checked`);
        if (checked) likert[item.id] = Number(checked.value);
      }
      const unrated = study.likert.filter((item) => likert[item.id] === undefined);
      if (unrated.length > 0) return showError(line, markMissing(form, unrated, 'rating'));
      markMissing(form, [], 'rating');
      const open: Record<string, string> = {};
      for (const q of study.open) {
        const value = form.querySelector<HTMLTextAreaElement>(`#open-${q.id}`)!.value;
        if (q.required && value.trim() === '') return showError(line, `Please answer "${q.prompt}".`);
        open[q.id] = value;
      }
      void submit(send, line, () => api.ratings({ block: step.block, likert, open }));
    });
    setCard(
      el('h1', {}, swatch(step.badge.colour), `About ${step.badge.label}`),
      el('p', { text: `How much do you agree with each statement about ${step.badge.label}, the team you just played against?` }),
      form,
    );
  }

  function renderChoice(step: Extract<Step, { kind: 'choice' }>): void {
    const form = el('form', { class: 'study-form', id: 'choice-form', novalidate: true });
    const options = el('div', { class: 'choice-options' });
    for (const o of step.options) {
      const id = `choice-${o.label.replace(/\W+/g, '-')}`;
      options.append(el('label', { class: 'choice-option', for: id }, el('input', { type: 'radio', name: 'choice', id, value: o.label }), swatch(o.colour), el('span', { text: o.label })));
    }
    const fc = study.forcedChoice;
    const reason = el('textarea', { id: 'choice-reason', name: 'reason', rows: 4, maxlength: fc.maxLength });
    const line = errorLine();
    const send = el('button', { type: 'submit', class: 'primary', id: 'choice-submit', text: 'Continue' }) as HTMLButtonElement;
    form.append(
      el('fieldset', {}, el('legend', { text: fc.prompt }), options),
      el('label', { class: 'open-question', for: 'choice-reason' }, el('span', { text: fc.reasonPrompt }), reason),
      line,
      el('div', { class: 'actions' }, send),
    );
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const checked = form.querySelector<HTMLInputElement>('input[name="choice"]:checked');
      if (!checked) return showError(line, 'Please choose a team.');
      if (fc.reasonRequired && reason.value.trim() === '') return showError(line, 'Please say why.');
      void submit(send, line, () => api.choice({ label: checked.value, reason: reason.value }));
    });
    const played = el('ol', { class: 'choice-order', id: 'choice-order' }, ...step.options.map((o) => el('li', {}, swatch(o.colour), el('span', { text: o.label }))));
    setCard(el('h1', { text: 'Which team?' }), el('p', { text: 'You played against these teams, in this order:' }), played, form);
  }

  function renderBackground(): void {
    const form = el('form', { class: 'study-form', id: 'background-form', novalidate: true });
    study.background.forEach((q) => {
      const options = el('div', { class: 'background-options' });
      q.options.forEach((option, i) => {
        const id = `bg-${q.id}-${i}`;
        options.append(el('label', { class: 'choice-option', for: id }, el('input', { type: 'radio', name: `bg-${q.id}`, id, value: option }), el('span', { text: option })));
      });
      form.append(el('fieldset', { 'data-item': q.id }, el('legend', { text: q.prompt }), options));
    });
    const line = errorLine();
    const send = el('button', { type: 'submit', class: 'primary', id: 'background-submit', text: 'Finish' }) as HTMLButtonElement;
    form.append(line, el('div', { class: 'actions' }, send));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const answers: Record<string, string> = {};
      for (const q of study.background) {
        const checked = form.querySelector<HTMLInputElement>(`input[name="bg-${q.id}"]:checked`);
        if (checked) answers[q.id] = checked.value;
      }
      const unanswered = study.background.filter((q) => answers[q.id] === undefined);
      if (unanswered.length > 0) return showError(line, markMissing(form, unanswered, 'question'));
      void submit(send, line, () => api.background(answers));
    });
    setCard(el('h1', { text: 'About you' }), form);
  }

  async function renderClip(step: Extract<Step, { kind: 'clip' }>): Promise<void> {
    stepKind = 'clip-loading';
    let clip: Awaited<ReturnType<StudyApi['clip']>>;
    try {
      clip = await api.clip();
    } catch (err) {
      return fatal(message(err));
    }
    const watch = async () => {
      stepKind = 'watching';
      card.hidden = true;
      arena.park(false);
      try {
        await arena.watch(clip.replay as ReplayFile);
      } catch (err) {
        return fatal(message(err));
      }
      judge();
    };
    const judge = () => {
      stepKind = 'judging';
      const form = el('form', { class: 'study-form', id: 'judge-form', novalidate: true });
      for (const a of clip.agents) {
        const options = el('div', { class: 'background-options' });
        for (const [value, text] of [['human', 'A person'], ['bot', 'A bot']] as const) {
          const id = `judge-${a.agent}-${value}`;
          options.append(el('label', { class: 'choice-option', for: id }, el('input', { type: 'radio', name: `judge-${a.agent}`, id, value }), el('span', { text })));
        }
        form.append(el('fieldset', { 'data-agent': a.agent }, el('legend', { text: `${a.name} (${a.team === 0 ? 'B' : 'R'}${a.slot + 1})` }), options));
      }
      const line = errorLine();
      const again = el('button', { type: 'button', class: 'ghost', id: 'clip-again', text: 'Watch again' });
      again.addEventListener('click', () => void watch());
      const send = el('button', { type: 'submit', class: 'primary', id: 'judge-submit', text: 'Continue' }) as HTMLButtonElement;
      form.append(line, el('div', { class: 'actions' }, again, send));
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        const judgements: { agent: number; human: boolean }[] = [];
        for (const a of clip.agents) {
          const checked = form.querySelector<HTMLInputElement>(`input[name="judge-${a.agent}"]:checked`);
          if (!checked) return showError(line, 'Please judge every player.');
          judgements.push({ agent: a.agent, human: checked.value === 'human' });
        }
        void submit(send, line, () => api.judgements({ clip: clip.clip, episodeId: clip.episodeId, judgements }));
      });
      card.hidden = false;
      setCard(el('h1', { text: `Clip ${clip.clip + 1} of ${clip.clips}: who played?` }), el('p', { text: 'For each player, was it a person or a bot?' }), form);
    };
    stepKind = 'clip';
    const start = el('button', { type: 'button', class: 'primary', id: 'clip-start', text: 'Watch the clip' });
    start.addEventListener('click', () => void watch());
    setCard(
      el('h1', { text: `Clip ${step.clip + 1} of ${step.clips}` }),
      el('p', { text: 'Watch the recorded episode. Each of the four players (B1, B2 on blue, R1, R2 on red) was either a person or a bot. Afterwards, say which you think each was.' }),
      el('div', { class: 'actions' }, start),
    );
  }

  function renderDone(step: Extract<Step, { kind: 'done' }>): void {
    const parts: (Node | null)[] = [el('h1', { text: 'Thank you!' }), el('div', { class: 'study-text' }, ...paragraphs(step.message))];
    if (step.code) parts.push(el('p', {}, 'Your completion code: ', el('strong', { class: 'mono completion-code', id: 'completion-code', text: step.code })));
    if (step.redirectUrl) {
      parts.push(el('p', {}, el('a', { class: 'button primary', id: 'completion-redirect', href: step.redirectUrl, text: 'Return to the study platform' })));
      setTimeout(() => location.assign(step.redirectUrl!), 4000);
    }
    setCard(...parts);
  }

  if (api.hasSession) {
    try {
      render(await api.state());
      return;
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 401)) return fatal(message(err));
      api.forget();
    }
  }
  renderConsent();
}
