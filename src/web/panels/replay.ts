/** Load a replay file, see what it is, scrub through it, and whether it ends on its recorded hash. */
import { clock } from '../describe';
import { el, panel, setHidden, setText } from '../dom';
import type { MatchSession } from '../matchSession';
import type { Stores } from '../stores';

export function replayPanel(stores: Stores, session: MatchSession): HTMLElement {
  const file = el('input', { type: 'file', id: 'replay-file', accept: '.json,application/json', class: 'file-input' });
  const pick = el('label', { for: 'replay-file', class: 'button', text: 'Load replay…' });
  const info = el('p', { class: 'hint', id: 'replay-info', text: 'Replays come from "Save replay" here or from the match command with --replay. You can also drop a file on the page.' });
  const scrub = el('input', { type: 'range', id: 'replay-scrub', min: 0, max: 0, step: 1, value: 0, 'aria-label': 'Replay position' });
  const time = el('span', { class: 'mono', id: 'replay-time' });
  const scrubRow = el('div', { class: 'scrub' }, scrub, time);
  const check = el('p', { class: 'check-line', id: 'replay-check' });
  let dragging = false;

  file.addEventListener('change', async () => {
    const f = file.files?.[0];
    if (!f) return;
    const text = await f.text();
    session.loadReplay(text, f.name);
    file.value = '';
  });
  scrub.addEventListener('pointerdown', () => (dragging = true));
  scrub.addEventListener('pointerup', () => (dragging = false));
  scrub.addEventListener('input', () => session.seek(Number(scrub.value)));
  scrub.addEventListener('change', () => (dragging = false));

  const render = () => {
    const app = stores.app.getState();
    const hud = stores.hud.getState();
    const r = app.mode === 'replay' ? app.replay : null;
    setHidden(scrubRow, !r);
    if (r) {
      setText(info, `${r.name}: ${r.blue} vs ${r.red}, seed ${r.seed}, ${clock(r.ticks, hud.tickHz)}, ${r.outcome === 'draw' ? 'a draw' : r.outcome === 'unfinished' ? 'unfinished' : `${r.outcome} wins`}`);
      scrub.max = String(r.ticks);
      if (!dragging) scrub.value = String(hud.tick);
      setText(time, `${clock(hud.tick, hud.tickHz)} / ${clock(r.ticks, hud.tickHz)}`);
    }
    const c = r ? app.replayCheck : null;
    setHidden(check, !c);
    if (c) {
      check.classList.toggle('ok', c.ok);
      check.classList.toggle('bad', !c.ok);
      setText(check, c.ok ? `Ends on the recorded state (hash ${c.actual})` : `Does not match: expected ${c.expected}, got ${c.actual}`);
    }
  };
  stores.app.subscribe(render);
  stores.hud.subscribe(render);
  render();

  return panel('Replay', 'replay-panel', el('div', { class: 'row' }, pick, file), info, scrubRow, check);
}
