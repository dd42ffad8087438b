/**
 * The consent step, before the participant exists: agreeing starts a session (with the
 * recruitment platform's ids from the URL); declining stores nothing. A recruitment
 * platform's preview (no assignment yet) cannot agree.
 */
import { el } from '../dom';
import { type StudyPage, errorLine, paragraphs } from './page';

/** URL parameters of recruitment platforms, kept with the participant. */
const EXTERNAL_PARAMS = ['PROLIFIC_PID', 'STUDY_ID', 'SESSION_ID', 'workerId', 'assignmentId', 'hitId'] as const;

function externalParams(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of EXTERNAL_PARAMS) {
    const v = params.get(key);
    if (v) out[key] = v.slice(0, 128).replace(/[^\x20-\x7e]/g, '');
  }
  return out;
}

export function renderConsent(page: StudyPage): void {
  const { study, api, params } = page;
  page.setStepKind('consent');
  const agree = el('button', { type: 'button', class: 'primary', id: 'consent-agree', text: 'I agree' }) as HTMLButtonElement;
  const decline = el('button', { type: 'button', class: 'ghost', id: 'consent-decline', text: 'I do not agree' });
  const line = errorLine();
  const preview = params.get('assignmentId') === 'ASSIGNMENT_ID_NOT_AVAILABLE';
  if (preview) agree.disabled = true;
  agree.addEventListener('click', () => void page.submit(agree, line, () => api.start(externalParams(params))));
  decline.addEventListener('click', () => {
    page.setStepKind('declined');
    page.setCard(el('h1', { text: 'Thank you' }), el('p', { text: 'You chose not to take part. Nothing was stored. You can close this page.' }));
  });
  page.setCard(
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
