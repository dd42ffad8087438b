/** The instructions step: the study's text, then on to the practice round or the first block. */
import { el } from '../dom';
import { type StudyPage, errorLine, paragraphs } from './page';

export function renderInstructions(page: StudyPage): void {
  const { study, api } = page;
  const next = el('button', { type: 'button', class: 'primary', id: 'instructions-continue', text: study.practice && study.kind === 'play' ? 'Continue to the practice round' : 'Begin' }) as HTMLButtonElement;
  const line = errorLine();
  next.addEventListener('click', () => void page.submit(next, line, () => api.instructions()));
  page.setCard(el('h1', { text: 'Instructions' }), el('div', { class: 'study-text', id: 'instructions-text' }, ...paragraphs(study.instructions)), line, el('div', { class: 'actions' }, next));
}
