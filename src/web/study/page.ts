/**
 * What every step of the participant's page works with: the study, the server's API, the
 * arena, the card a step draws in, and the moves between steps (render the state the
 * server answers, submit and go on, or stop with an error). Each step lives in its own
 * module (consent.ts, instructions.ts, episode.ts, ratings.ts, questionnaire.ts, clip.ts,
 * completion.ts) and receives a StudyPage; participant.ts builds it and picks the step.
 */
import { el } from '../dom';
import type { PublicStudy, ParticipantState, StudyApi } from './api';
import type { StudyArena } from './arena';

export interface StudyPage {
  readonly study: PublicStudy;
  readonly api: StudyApi;
  readonly arena: StudyArena;
  /** The page's URL parameters (recruitment ids, the renderer). */
  readonly params: URLSearchParams;
  /** The card each step draws in (hidden while an episode or clip plays). */
  readonly card: HTMLElement;
  /** The server's notice line above the card. */
  readonly notice: HTMLElement;
  /** Name the step on screen, for the test hook ('consent', 'playing', 'judging', ...). */
  setStepKind(kind: string): void;
  /** Show these in the card (nulls skipped), and the card itself. */
  setCard(...children: (Node | null)[]): void;
  /** Stop with an error the participant cannot act on. */
  fatal(text: string): void;
  /** Draw the step of a state the server answered. */
  render(state: ParticipantState): void;
  /** Send something to the server and go on to the state it answers, or show why not in `line`. */
  submit(button: HTMLButtonElement, line: HTMLElement, action: () => Promise<ParticipantState>): Promise<void>;
}

export function paragraphs(text: string): HTMLElement[] {
  return text.split(/\n\s*\n/).map((p) => el('p', { text: p.trim() }));
}

/** A hidden line for a step's error (errors are set as text, never as HTML). */
export function errorLine(): HTMLElement {
  return el('p', { class: 'form-error', role: 'alert', hidden: true });
}

export function showError(line: HTMLElement, text: string): void {
  line.textContent = text;
  line.hidden = false;
}

/** "Please answer every rating. Not answered yet: "A"; "B"." and the unanswered fieldsets marked (the first focused). */
export function markMissing(form: HTMLFormElement, missing: readonly { readonly id: string; readonly prompt: string }[], what: string): string {
  for (const set of form.querySelectorAll<HTMLFieldSetElement>('fieldset[data-item]')) {
    const unanswered = missing.some((m) => m.id === set.dataset.item);
    set.classList.toggle('missing', unanswered);
    if (unanswered) set.setAttribute('aria-invalid', 'true');
    else set.removeAttribute('aria-invalid');
  }
  form.querySelector<HTMLInputElement>('fieldset.missing input')?.focus();
  return `Please answer every ${what}. Not answered yet: ${missing.map((m) => `"${m.prompt}"`).join('; ')}.`;
}

/** A team's badge colour. */
export function swatch(colour: string): HTMLElement {
  const s = el('span', { class: 'swatch' });
  s.style.background = colour;
  return s;
}

export function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
