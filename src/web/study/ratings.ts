/** The questions after each block: the study's ratings of the team just played, and its open questions. */
import { el } from '../dom';
import type { Step } from './api';
import { type StudyPage, errorLine, markMissing, showError, swatch } from './page';

export function renderRatings(page: StudyPage, step: Extract<Step, { kind: 'rate' }>): void {
  const { study, api } = page;
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
    void page.submit(send, line, () => api.ratings({ block: step.block, likert, open }));
  });
  page.setCard(
    el('h1', {}, swatch(step.badge.colour), `About ${step.badge.label}`),
    el('p', { text: `How much do you agree with each statement about ${step.badge.label}, the team you just played against?` }),
    form,
  );
}
