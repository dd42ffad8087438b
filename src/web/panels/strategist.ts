/** Each team's latest strategic decision, when it applied, and where it came from. */
import { SKILLS, isSkillId } from '../../skills';
import { SOURCE_LABELS, clock } from '../describe';
import { el, panel, setText } from '../dom';
import type { TimedDecision } from '../../teams';
import type { Stores, TeamStrategy } from '../stores';

function skillName(id: string): string {
  return isSkillId(id) ? SKILLS[id].name : id;
}

function teamBlock(team: 0 | 1) {
  const title = el('div', { class: 'strat-title' });
  const latest = el('div', { class: 'strat-latest' });
  const rationale = el('blockquote', { class: 'strat-rationale', hidden: true });
  const history = el('ol', { class: 'strat-history' });
  const root = el('div', { class: `strat-team ${team === 0 ? 'blue' : 'red'}`, id: `strategist-${team === 0 ? 'blue' : 'red'}` }, title, latest, rationale, history);
  return { root, title, latest, rationale, history };
}

export function strategistPanel(stores: Stores): HTMLElement {
  const blocks = [teamBlock(0), teamBlock(1)];
  const render = () => {
    const s = stores.strategist.getState();
    const hz = stores.hud.getState().tickHz;
    s.teams.forEach((t: TeamStrategy, team) => {
      const b = blocks[team]!;
      setText(b.title, `${team === 0 ? 'Blue' : 'Red'}${t.controller ? ` · ${t.controller}` : ''}`);
      const d = t.decisions[0];
      const people = t.humanSlots.map((slot) => `${team === 0 ? 'Blue' : 'Red'} ${slot + 1}`);
      const personLine = people.length > 0 ? `${people.join(' and ')}: played by a person. ` : '';
      if (!d) {
        const starting = stores.hud
          .getState()
          .agents.filter((a) => a.team === team && !a.human && a.skill)
          .map((a) => `${a.name} → ${skillName(a.skill!)}`)
          .join(', ');
        setText(
          b.latest,
          !t.controller
            ? 'Start a match to see decisions.'
            : starting
              ? `${personLine}${starting} · starting skills, no change yet`
              : t.controller === 'heuristic'
                ? 'No strategist: each agent goes to the zone and shoots.'
                : t.controller === 'flat'
                  ? 'No strategist: each agent runs one trained policy on its own.'
                  : `${personLine}No decision yet.`,
        );
      } else {
        const skills = d.skills
          .map((skill, slot) => (t.humanSlots.includes(slot) ? null : `${team === 0 ? 'Blue' : 'Red'} ${slot + 1} → ${skillName(skill)}`))
          .filter((x) => x !== null)
          .join(', ');
        // Asynchronous strategists (the language model) say when they were asked and how long the answer took.
        const timing = (d as TimedDecision).timing;
        const took = timing ? ` (asked at ${clock(timing.requestTick, hz)} on ${timing.trigger}, ${Math.round(timing.latencyMs)} ms${timing.cached ? ', cached' : ''})` : '';
        setText(b.latest, `${personLine}${skills} · by ${SOURCE_LABELS[d.source]} at ${clock(d.tick, hz)}${took}`);
      }
      b.rationale.hidden = !d?.rationale;
      setText(b.rationale, d?.rationale ?? '');
      const items = t.decisions.slice(1).map((h) => `${clock(h.tick, hz)} ${h.skills.map(skillName).join(' / ')}`);
      const current = Array.from(b.history.children).map((c) => c.textContent);
      if (current.join('\n') !== items.join('\n')) b.history.replaceChildren(...items.map((text) => el('li', { text })));
    });
  };
  stores.strategist.subscribe(render);
  // Starting skills come from the agent cards until the first decision.
  stores.hud.subscribe((h, before) => {
    if (h.teams !== before.teams || h.tick < before.tick) render();
  });
  render();
  return panel('Strategists', 'strategist-panel', ...blocks.map((b) => b.root));
}
