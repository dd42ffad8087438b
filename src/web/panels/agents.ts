/** One card per agent: who plays it, its skill, health, and kills/deaths. */
import { SKILLS, isSkillId } from '../../skills';
import { el, panel, setText } from '../dom';
import type { AgentCard, Stores } from '../stores';

interface CardNodes {
  root: HTMLElement;
  name: HTMLElement;
  controller: HTMLElement;
  skill: HTMLElement;
  health: HTMLElement;
  healthText: HTMLElement;
  kd: HTMLElement;
  accuracy: HTMLElement;
  status: HTMLElement;
}

function card(): CardNodes {
  const name = el('span', { class: 'agent-name' });
  const controller = el('span', { class: 'agent-controller' });
  const skill = el('span', { class: 'skill-pill' });
  const health = el('div', { class: 'hp-fill' });
  const healthText = el('span', { class: 'mono hp-text' });
  const kd = el('span', { class: 'mono kd' });
  const accuracy = el('span', { class: 'mono' });
  const status = el('span', { class: 'agent-status' });
  const root = el(
    'div',
    { class: 'agent-card' },
    el('div', { class: 'agent-head' }, name, skill),
    el('div', { class: 'agent-sub' }, controller, status),
    el('div', { class: 'hp' }, el('div', { class: 'hp-bar' }, health), healthText),
    el('div', { class: 'agent-foot' }, kd, accuracy),
  );
  return { root, name, controller, skill, health, healthText, kd, accuracy, status };
}

function skillText(a: AgentCard): string {
  if (a.human) return 'person';
  if (!a.skill) return '—';
  return isSkillId(a.skill) ? SKILLS[a.skill].name : a.skill;
}

export function agentsPanel(stores: Stores): HTMLElement {
  const list = el('div', { class: 'agent-grid', id: 'agent-cards' });
  const cards: CardNodes[] = [];
  const render = () => {
    const h = stores.hud.getState();
    while (cards.length < h.agents.length) {
      const c = card();
      cards.push(c);
      list.append(c.root);
    }
    h.agents.forEach((a, i) => {
      const c = cards[i]!;
      c.root.className = `agent-card ${a.team === 0 ? 'blue' : 'red'}${a.alive ? '' : ' down'}${a.human ? ' human' : ''}`;
      c.root.dataset.agent = String(a.id);
      setText(c.name, a.name);
      setText(c.controller, a.controller || 'waiting for a match');
      setText(c.skill, skillText(a));
      c.skill.className = `skill-pill ${a.human ? 'person' : (a.skill ?? 'none')}`;
      c.health.style.width = `${Math.max(0, (100 * a.health) / a.maxHealth).toFixed(0)}%`;
      c.health.className = `hp-fill ${a.health / a.maxHealth > 0.66 ? 'high' : a.health / a.maxHealth > 0.33 ? 'mid' : 'low'}`;
      setText(c.healthText, `${Math.round(a.health)}`);
      setText(c.kd, `K ${a.kills} · D ${a.deaths}`);
      setText(c.accuracy, a.shots > 0 ? `${Math.round((100 * a.hits) / a.shots)}% of ${a.shots} shots` : 'no shots');
      c.accuracy.title = 'hits as a share of shots fired';
      setText(c.status, !a.alive ? `back in ${a.respawnIn.toFixed(1)} s` : a.inZone ? 'in zone' : '');
    });
  };
  stores.hud.subscribe(render);
  render();
  return panel('Agents', 'agents-panel', list);
}
