/** An observe study's clip: fetch it, watch it in the arena (again if wished), then judge each player a person or a bot. */
import type { ReplayFile } from '../../match';
import { el } from '../dom';
import type { Step, StudyApi } from './api';
import { type StudyPage, errorLine, message, showError } from './page';

export async function renderClip(page: StudyPage, step: Extract<Step, { kind: 'clip' }>): Promise<void> {
  const { api, arena, card } = page;
  page.setStepKind('clip-loading');
  let clip: Awaited<ReturnType<StudyApi['clip']>>;
  try {
    clip = await api.clip();
  } catch (err) {
    return page.fatal(message(err));
  }
  const watch = async () => {
    page.setStepKind('watching');
    card.hidden = true;
    arena.park(false);
    try {
      await arena.watch(clip.replay as ReplayFile);
    } catch (err) {
      return page.fatal(message(err));
    }
    judge();
  };
  const judge = () => {
    page.setStepKind('judging');
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
      void page.submit(send, line, () => api.judgements({ clip: clip.clip, episodeId: clip.episodeId, judgements }));
    });
    card.hidden = false;
    page.setCard(el('h1', { text: `Clip ${clip.clip + 1} of ${clip.clips}: who played?` }), el('p', { text: 'For each player, was it a person or a bot?' }), form);
  };
  page.setStepKind('clip');
  const start = el('button', { type: 'button', class: 'primary', id: 'clip-start', text: 'Watch the clip' });
  start.addEventListener('click', () => void watch());
  page.setCard(
    el('h1', { text: `Clip ${step.clip + 1} of ${step.clips}` }),
    el('p', { text: 'Watch the recorded episode. Each of the four players (B1, B2 on blue, R1, R2 on red) was either a person or a bot. Afterwards, say which you think each was.' }),
    el('div', { class: 'actions' }, start),
  );
}
