/**
 * Each team's latest strategic decision, agent by agent: which skill each agent runs, who
 * decided it and when, and for the language model its rationale and how long it took. A
 * run of quick flips (a behavior tree settling) shows as one line with a count.
 */
import { SKILLS, isSkillId } from '../../skills';
import type { LlmStatus, TimedDecision } from '../../teams';
import { SOURCE_LABELS, clock, teamLabel } from '../describe';
import { el, panel, setText } from '../dom';
import type { ShownDecision, Stores, TeamStrategy } from '../stores';

function skillName(id: string): string {
  return isSkillId(id) ? SKILLS[id].name : id;
}

/** "Blue 1 Navigate · Blue 2 Secure", leaving out the agents people play. */
export function skillsLine(team: 0 | 1, skills: readonly string[], humanSlots: readonly number[]): string {
  return skills
    .map((skill, slot) => (humanSlots.includes(slot) ? null : `${teamLabel(team)} ${slot + 1} ${skillName(skill)}`))
    .filter((x) => x !== null)
    .join(' · ');
}

/**
 * Who decided and when; asynchronous strategists (the language model) also say when they
 * were asked, on what, and how long the answer took. A folded run says how many changes
 * it stands for.
 */
export function decisionMeta(shown: ShownDecision, hz: number): string {
  const d = shown.decision as TimedDecision;
  const took = d.timing ? ` (asked at ${clock(d.timing.requestTick, hz)} on ${d.timing.trigger}, ${Math.round(d.timing.latencyMs)} ms${d.timing.cached ? ', cached' : ''})` : '';
  const run = shown.count > 1 ? ` · ${shown.count} changes since ${clock(shown.since, hz)}` : '';
  return `by ${SOURCE_LABELS[d.source]} at ${clock(d.tick, hz)}${took}${run}`;
}

/**
 * A language model's calls in one line: waiting for an answer (and since when), how the last
 * call went (its time, or why it failed), and the counts so far.
 */
export function modelStatusLine(status: LlmStatus, hz: number): string {
  const parts: string[] = [];
  if (status.askedAtTick !== null) parts.push(`waiting for the model (asked at ${clock(status.askedAtTick, hz)})`);
  const last = status.last;
  if (last?.ok) parts.push(`last answer took ${Math.round(last.latencyMs ?? 0)} ms${last.cached ? ' (cached)' : ''}`);
  else if (last?.failure === 'timeout') parts.push(`last call timed out: ${last.reason ?? 'no answer in time'}`);
  else if (last) parts.push(`last call failed (${last.failure}): ${last.reason ?? ''}`.trim());
  else if (status.requests === 0) parts.push('no call yet');
  const failed = status.timeouts + status.otherFailures;
  parts.push(`${status.requests} asked, ${status.answers} answered${failed ? `, ${status.timeouts} timed out, ${status.otherFailures} failed` : ''}`);
  return `Model: ${parts.join(' · ')}`;
}

/** What a side shows before its first decision, or instead of decisions. */
function waitingText(t: TeamStrategy, team: 0 | 1, starting: string): string {
  if (!t.controller) return 'Start a match to see decisions.';
  if (starting) return `${starting} · starting skills, no change yet`;
  if (t.controller === 'heuristic') return 'No strategist: each agent goes to the zone and shoots.';
  if (t.controller === 'flat') return 'No strategist: each agent runs one trained policy on its own.';
  return `${teamLabel(team)}: no decision yet.`;
}

function teamBlock(team: 0 | 1) {
  const title = el('div', { class: 'strat-title' });
  const people = el('div', { class: 'strat-people', hidden: true });
  const latest = el('div', { class: 'strat-latest' });
  const meta = el('div', { class: 'strat-meta', hidden: true });
  const rationale = el('blockquote', { class: 'strat-rationale', hidden: true });
  const model = el('div', { class: 'strat-model', hidden: true });
  const history = el('ol', { class: 'strat-history' });
  const root = el('div', { class: `strat-team ${team === 0 ? 'blue' : 'red'}`, id: `strategist-${team === 0 ? 'blue' : 'red'}` }, title, people, latest, meta, model, rationale, history);
  return { root, title, people, latest, meta, model, rationale, history };
}

export function strategistPanel(stores: Stores): HTMLElement {
  const blocks = [teamBlock(0), teamBlock(1)];
  const render = () => {
    const s = stores.strategist.getState();
    const hud = stores.hud.getState();
    const hz = hud.tickHz;
    s.teams.forEach((t: TeamStrategy, index) => {
      const team = index as 0 | 1;
      const b = blocks[team]!;
      setText(b.title, `${teamLabel(team)}${t.controller ? ` · ${t.controller}` : ''}`);
      const slots = hud.agents.filter((a) => a.team === team).length;
      const allPeople = t.humanSlots.length > 0 && t.humanSlots.length >= slots;
      const names = t.humanSlots.map((slot) => `${teamLabel(team)} ${slot + 1}`);
      b.people.hidden = t.humanSlots.length === 0;
      setText(b.people, names.length === 1 ? `${names[0]}: played by you.` : `${names.join(' and ')}: played by people.`);
      const d = t.decisions[0];
      // With people on every agent, no strategist's choice reaches the game: say nothing of it.
      const shown = allPeople ? undefined : d;
      if (!shown) {
        const starting = hud.agents
          .filter((a) => a.team === team && !a.human && a.skill)
          .map((a) => `${a.name} ${skillName(a.skill!)}`)
          .join(' · ');
        setText(b.latest, allPeople ? '' : waitingText(t, team, starting));
        b.latest.hidden = allPeople;
      } else {
        b.latest.hidden = false;
        setText(b.latest, skillsLine(team, shown.decision.skills, t.humanSlots));
      }
      b.meta.hidden = !shown;
      setText(b.meta, shown ? decisionMeta(shown, hz) : '');
      const status = s.models[team];
      b.model.hidden = !status;
      setText(b.model, status ? modelStatusLine(status, hz) : '');
      const why = shown?.decision.rationale;
      b.rationale.hidden = !why;
      setText(b.rationale, why ?? '');
      const items = allPeople
        ? []
        : t.decisions.slice(1).map((h) => `${clock(h.decision.tick, hz)} ${skillsLine(team, h.decision.skills, t.humanSlots)}${h.count > 1 ? ` (${h.count} changes)` : ''}`);
      const current = Array.from(b.history.children).map((c) => c.textContent);
      if (current.join('\n') !== items.join('\n')) b.history.replaceChildren(...items.map((text) => el('li', { text })));
    });
  };
  stores.strategist.subscribe(render);
  // Starting skills come from the agent cards until the first decision.
  stores.hud.subscribe((h, before) => {
    if (h.teams !== before.teams || h.tick < before.tick || h.agents.length !== before.agents.length) render();
  });
  render();
  return panel('Strategists', 'strategist-panel', ...blocks.map((b) => b.root));
}
