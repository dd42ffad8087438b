/** The final questions: which of the teams played (the forced choice, with a reason), then the background questions. */
import { el } from '../dom';
import type { Step } from './api';
import { type StudyPage, errorLine, markMissing, showError, swatch } from './page';

export function renderChoice(page: StudyPage, step: Extract<Step, { kind: 'choice' }>): void {
  const { study, api } = page;
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
    void page.submit(send, line, () => api.choice({ label: checked.value, reason: reason.value }));
  });
  const played = el('ol', { class: 'choice-order', id: 'choice-order' }, ...step.options.map((o) => el('li', {}, swatch(o.colour), el('span', { text: o.label }))));
  page.setCard(el('h1', { text: 'Which team?' }), el('p', { text: 'You played against these teams, in this order:' }), played, form);
}

export function renderBackground(page: StudyPage): void {
  const { study, api } = page;
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
    void page.submit(send, line, () => api.background(answers));
  });
  page.setCard(el('h1', { text: 'About you' }), form);
}
