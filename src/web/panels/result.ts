/**
 * The end of a match, over the arena: the result in the viewer's words ("You won" when a
 * person plays), the score, and what to do next: play again (same teams, the next seed)
 * or save the replay; for a replay, watch it again. Close hides it to look at the arena.
 */
import { clock, resultText } from '../describe';
import { el, setHidden, setText } from '../dom';
import type { Stores } from '../stores';

export interface ResultActions {
  playAgain(): void;
  saveReplay(): void;
  watchAgain(): void;
}

export function resultOverlay(stores: Stores, actions: ResultActions): HTMLElement {
  const headline = el('h2', { class: 'result-headline', id: 'result-headline' });
  const score = el('p', { class: 'result-score mono', id: 'result-score' });
  const detail = el('p', { class: 'result-detail', id: 'result-detail' });
  const again = el('button', { type: 'button', class: 'primary', id: 'play-again', text: 'Play again' });
  const save = el('button', { type: 'button', id: 'result-save-replay', text: 'Save replay' });
  const watch = el('button', { type: 'button', id: 'watch-again', text: 'Watch again' });
  const close = el('button', { type: 'button', class: 'ghost', id: 'result-close', text: 'Close' });
  const card = el('div', { class: 'result-card', role: 'dialog', 'aria-labelledby': 'result-headline' }, headline, score, detail, el('div', { class: 'result-actions' }, again, watch, save, close));
  const root = el('div', { class: 'result-overlay', id: 'result-overlay', hidden: true }, card);
  let closed = false;

  again.addEventListener('click', () => actions.playAgain());
  save.addEventListener('click', () => actions.saveReplay());
  watch.addEventListener('click', () => actions.watchAgain());
  close.addEventListener('click', () => {
    closed = true;
    setHidden(root, true);
  });

  const render = () => {
    const h = stores.hud.getState();
    const mode = stores.app.getState().mode;
    if (!h.outcome) closed = false;
    const show = h.outcome !== null && (mode === 'live' || mode === 'replay') && !closed;
    setHidden(root, !show);
    if (!show || !h.outcome) return;
    const person = h.agents.some((a) => a.human);
    setText(headline, resultText(h.outcome, person));
    root.className = `result-overlay ${h.outcome}${person ? (h.outcome === 'blue' ? ' won' : h.outcome === 'red' ? ' lost' : '') : ''}`;
    const kills = [0, 1].map((team) => h.agents.filter((a) => a.team === team).reduce((n, a) => n + a.kills, 0));
    setText(score, `Blue ${h.progress[0].toFixed(1)} s – ${h.progress[1].toFixed(1)} s Red · eliminations ${kills[0]} – ${kills[1]}`);
    setText(
      detail,
      `${h.teams[0]} vs ${h.teams[1]} · ${h.outcome === 'draw' ? `time ran out at ${clock(h.tick, h.tickHz)}` : `${h.winSeconds} s in the zone after ${clock(h.tick, h.tickHz)}`}`,
    );
    const live = mode === 'live';
    setHidden(again, !live);
    setHidden(save, !live);
    setHidden(watch, live);
  };
  stores.hud.subscribe(render);
  stores.app.subscribe(render);
  render();
  return root;
}
