/**
 * The notice over the top of the arena where a language model decides slower than the game
 * at the speed chosen (modelPace.ts): how many times it decided in the last game-seconds, of
 * how many asked, and a button to wait for the model instead. Waiting is turned off again
 * with the Playback panel's "Wait for the model" switch.
 */
import { el, setHidden, setText } from '../dom';
import { paceNotice } from '../modelPace';
import type { Stores } from '../stores';

export function modelPaceNotice(stores: Stores): HTMLElement {
  const text = el('span', { id: 'model-pace-text' });
  const wait = el('button', { type: 'button', id: 'wait-for-model', text: 'Wait for the model', title: 'The game holds while the model answers, so it decides as often as at 1x' });
  const root = el('div', { class: 'pace-notice', id: 'model-pace', role: 'status', hidden: true }, text, wait);
  wait.addEventListener('click', () => stores.app.setState({ waitForModel: true }));
  const render = () => {
    const app = stores.app.getState();
    const { paces } = stores.strategist.getState();
    const notice = app.mode === 'live' ? paceNotice(app.speed, app.waitForModel, [{ side: 'blue', pace: paces[0] }, { side: 'red', pace: paces[1] }]) : null;
    setHidden(root, notice === null);
    setText(text, notice ?? '');
  };
  stores.app.subscribe(render);
  stores.strategist.subscribe(render);
  render();
  return root;
}
