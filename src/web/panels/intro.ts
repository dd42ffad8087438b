/** The short introduction for newcomers, the controls, and the team types. */
import { rulesText } from '../../match';
import { DEFAULT_CONFIG } from '../../sim';
import { teamEntries } from '../../teams';
import { el, setHidden } from '../dom';
import type { Stores } from '../stores';

export function introPanel(stores: Stores): HTMLElement {
  const close = el('button', { type: 'button', class: 'ghost', id: 'intro-close', text: 'Hide' });
  const teams = el(
    'dl',
    { class: 'team-types' },
    ...teamEntries().flatMap((e) => [el('dt', { text: e.id }), el('dd', { text: e.description })]),
  );
  const root = el(
    'section',
    { class: 'intro', id: 'intro' },
    el(
      'div',
      { class: 'intro-col' },
      el('h2', { text: 'How a match works' }),
      // The rules of the game the page plays, in the words a study's instructions use.
      el('p', { text: rulesText(DEFAULT_CONFIG) }),
      el('p', { text: 'Pick a team for each side and press Start. Choose "human" for blue to play yourself beside an AI teammate (controls on the left). Save any match as a replay and watch it again here.' }),
    ),
    el('div', { class: 'intro-col' }, el('h2', { text: 'Team types' }), teams),
    el('div', { class: 'intro-close' }, close),
  );
  close.addEventListener('click', () => stores.app.setState({ introOpen: false }));
  const render = () => setHidden(root, !stores.app.getState().introOpen);
  stores.app.subscribe(render);
  render();
  return root;
}

export function controlsPanel(): HTMLElement {
  const row = (keys: string, what: string) => el('tr', {}, el('td', {}, el('kbd', { text: keys })), el('td', { text: what }));
  return el(
    'section',
    { class: 'panel', id: 'controls-panel' },
    el('h2', { text: 'Controls' }),
    el(
      'table',
      { class: 'keys' },
      el(
        'tbody',
        {},
        row('W A S D', 'move (up, left, down, right)'),
        row('Mouse', 'aim where you point'),
        row('← →', 'turn instead of the mouse'),
        row('Click / Space', 'fire'),
        row('Shift', 'dash'),
        row('P', 'pause or resume'),
        row('.', 'one tick forward (paused)'),
        row('[ ]', 'slower / faster'),
      ),
    ),
    el('p', { class: 'hint', text: 'Second person: I J K L move, U O turn, Enter fires, right Shift dashes. Gamepad: left stick moves, right stick aims, RT or A fires, LB or B dashes.' }),
  );
}
