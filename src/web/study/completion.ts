/** The last step: thanks, the completion code, and the way back to the recruitment platform (followed after 4 s). */
import { el } from '../dom';
import type { Step } from './api';
import { type StudyPage, paragraphs } from './page';

export function renderDone(page: StudyPage, step: Extract<Step, { kind: 'done' }>): void {
  const parts: (Node | null)[] = [el('h1', { text: 'Thank you!' }), el('div', { class: 'study-text' }, ...paragraphs(step.message))];
  if (step.code) parts.push(el('p', {}, 'Your completion code: ', el('strong', { class: 'mono completion-code', id: 'completion-code', text: step.code })));
  if (step.redirectUrl) {
    parts.push(el('p', {}, el('a', { class: 'button primary', id: 'completion-redirect', href: step.redirectUrl, text: 'Return to the study platform' })));
    setTimeout(() => location.assign(step.redirectUrl!), 4000);
  }
  page.setCard(...parts);
}
