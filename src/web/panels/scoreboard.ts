/** Both teams' zone progress and the clock, above the arena; the result in its place at the end. */
import { clock } from '../describe';
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
  const time = el('div', { class: 'sb-clock mono', id: 'clock' });
  const zone = el('div', { class: 'sb-zone', id: 'zone-status' });
  const root = el('section', { class: 'scoreboard', id: 'scoreboard' }, blue.root, el('div', { class: 'sb-center' }, time, zone), red.root);

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
    const left = Math.max(0, h.episodeTicks - h.tick);
    time.title = `${clock(h.tick, h.tickHz)} played, tick ${h.tick}`;
    if (h.outcome) {
      // The result takes the clock's place.
      setText(time, h.outcome === 'draw' ? 'Draw' : `${h.outcome === 'blue' ? 'Blue' : 'Red'} wins`);
      time.className = `sb-clock result ${h.outcome}`;
      setText(zone, `after ${clock(h.tick, h.tickHz)} · ${h.outcome === 'draw' ? 'time is up' : `${h.winSeconds} s held`}`);
      zone.className = 'sb-zone';
      return;
    }
    setText(time, clock(left, h.tickHz));
    time.className = 'sb-clock mono';
    const status = h.zoneStatus === 'empty' ? 'Zone empty' : h.zoneStatus === 'contested' ? 'Zone contested' : `${h.zoneStatus === 'blue' ? 'Blue' : 'Red'} holds the zone`;
    setText(zone, app.mode === 'idle' ? 'Ready' : app.mode === 'loading' ? 'Starting…' : app.paused ? `Paused · ${status}` : status);
    zone.className = `sb-zone ${h.zoneStatus}`;
  };
  stores.hud.subscribe(render);
  stores.app.subscribe(render);
  render();
  return root;
}
