/**
 * Short notices over the arena while it plays, from the hud store: the 3-2-1 before a
 * match with people, "Go", and "You're out" with the seconds until the person's agent is
 * back. Shared by the product page and the study. They never take the pointer, so aiming
 * and clicking go through to the arena.
 */
import { el, setHidden, setText } from '../dom';
import type { Stores } from '../stores';

export function arenaNotices(stores: Stores): HTMLElement {
  const count = el('div', { class: 'countdown', id: 'countdown', 'aria-live': 'assertive', hidden: true });
  const out = el('div', { class: 'out-notice', id: 'out-notice', role: 'status', hidden: true });
  const root = el('div', { class: 'arena-notices' }, count, out);
  let last = 0;
  const render = () => {
    const h = stores.hud.getState();
    if (h.countdown !== last) {
      if (h.countdown > 0) {
        count.className = 'countdown';
        setText(count, String(h.countdown));
        setHidden(count, false);
      } else if (last > 0 && h.tick === 0) {
        // "Go" fades out by itself (CSS); the match is already under way.
        count.className = 'countdown go';
        setText(count, 'Go');
        setHidden(count, false);
      }
      last = h.countdown;
    }
    if (h.countdown === 0 && h.tick > 50) setHidden(count, true);
    const mine = h.agents.filter((a) => a.human && !a.alive);
    setHidden(out, mine.length === 0 || h.outcome !== null);
    if (mine.length > 0) {
      const who = h.agents.filter((a) => a.human).length > 1 ? `${mine.map((a) => a.name).join(' and ')} out` : "You're out";
      setText(out, `${who} · back in ${Math.max(...mine.map((a) => a.respawnIn)).toFixed(1)} s`);
    }
  };
  count.addEventListener('animationend', () => setHidden(count, true));
  stores.hud.subscribe(render);
  render();
  return root;
}
