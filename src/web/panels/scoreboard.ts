/**
 * Both teams' zone progress and the clock, above the arena; the result in its place at
 * the end. The clock counts up, as the feed, the strategist panel and the scrub bar do,
 * with the episode's length beside it.
 */
import { clock, resultText, zoneText } from '../describe';
import { el, setText } from '../dom';
import type { Stores } from '../stores';

function side(team: 'blue' | 'red') {
  const name = el('div', { class: 'sb-name' });
  const fill = el('div', { class: 'sb-fill' });
  const value = el('div', { class: 'sb-value mono' });
  const root = el('div', { class: `sb-side ${team}` }, name, el('div', { class: 'sb-bar' }, fill), value);
  return { root, name, fill, value };
}

export function scoreboard(stores: Stores): HTMLElement {
  const blue = side('blue');
  const red = side('red');
  const time = el('span', { class: 'sb-clock mono', id: 'clock' });
  const length = el('span', { class: 'sb-length mono', id: 'clock-length' });
  const zone = el('div', { class: 'sb-zone', id: 'zone-status' });
  const root = el('section', { class: 'scoreboard', id: 'scoreboard' }, blue.root, el('div', { class: 'sb-center' }, el('div', { class: 'sb-time' }, time, length), zone), red.root);

  const render = () => {
    const h = stores.hud.getState();
    const app = stores.app.getState();
    const names = [h.teams[0] || app.blue, h.teams[1] || app.red];
    setText(blue.name, `Blue · ${names[0]}`);
    setText(red.name, `Red · ${names[1]}`);
    [blue, red].forEach((s, team) => {
      const seconds = h.progress[team]!;
      s.fill.style.width = `${Math.min(100, (100 * seconds) / h.winSeconds).toFixed(1)}%`;
      setText(s.value, `${seconds.toFixed(1)} / ${h.winSeconds} s`);
    });
    time.title = `tick ${h.tick}`;
    if (h.outcome) {
      // The result takes the clock's place, in the viewer's words.
      const person = h.agents.some((a) => a.human);
      setText(time, resultText(h.outcome, person));
      setText(length, '');
      time.className = `sb-clock result ${h.outcome}${person ? (h.outcome === 'blue' ? ' won' : h.outcome === 'red' ? ' lost' : '') : ''}`;
      setText(zone, `after ${clock(h.tick, h.tickHz)} · ${h.outcome === 'draw' ? 'time is up' : `${h.winSeconds} s held`}`);
      zone.className = 'sb-zone';
      return;
    }
    setText(time, clock(h.tick, h.tickHz));
    setText(length, `/ ${clock(h.episodeTicks, h.tickHz)}`);
    time.className = 'sb-clock mono';
    const status = zoneText(h.zoneStatus);
    setText(
      zone,
      app.mode === 'idle' ? 'Ready' : app.mode === 'loading' ? 'Starting…' : h.countdown > 0 ? 'Get ready' : app.paused ? `Paused · ${status}` : status,
    );
    zone.className = `sb-zone ${h.zoneStatus}`;
  };
  stores.hud.subscribe(render);
  stores.app.subscribe(render);
  render();
  return root;
}
