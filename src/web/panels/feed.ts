/** The latest game events in words, newest first. */
import { clock } from '../describe';
import { el, panel } from '../dom';
import type { Stores } from '../stores';

export function feedPanel(stores: Stores): HTMLElement {
  const list = el('ol', { class: 'feed', id: 'event-feed', 'aria-live': 'polite' });
  let shown = -1;
  let first = -1;
  stores.feed.subscribe((s) => {
    const hz = stores.hud.getState().tickHz;
    const newest = s.entries[s.entries.length - 1]?.id ?? -1;
    const oldest = s.entries[0]?.id ?? -1;
    if (newest === shown && oldest === first) return;
    shown = newest;
    first = oldest;
    list.replaceChildren(
      ...s.entries
        .slice()
        .reverse()
        .map((e) => el('li', { class: `feed-item ${e.tone}` }, el('span', { class: 'mono feed-time', text: clock(e.tick, hz) }), el('span', { text: e.text }))),
    );
  });
  return panel('Events', 'feed-panel', list);
}
