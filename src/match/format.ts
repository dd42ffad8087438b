/** A match summary as text for the terminal. */
import { SKILL_IDS } from '../skills';
import type { MatchSummary } from './metrics';

const pad = (value: string | number, width: number) => String(value).padStart(width);

export function formatSummary(s: MatchSummary): string {
  const winner = s.winner === 'draw' ? 'draw' : `${s.winner} (${s[s.winner]}) wins`;
  const lines = [
    `${s.blue} (blue) vs ${s.red} (red), seed ${s.seed}: ${winner} after ${s.durationSeconds.toFixed(2)} s`,
    `zone progress: blue ${s.progress.blue.toFixed(2)} s, red ${s.progress.red.toFixed(2)} s; decisions: blue ${s.decisions.blue}, red ${s.decisions.red}`,
    '',
    `agent team  controller    kills deaths shots  hits  acc pickups  ${SKILL_IDS.map((id) => pad(id, 8)).join(' ')}`,
  ];
  for (const a of s.agents) {
    const acc = a.accuracy === null ? '-' : `${Math.round(a.accuracy * 100)}%`;
    const skills = SKILL_IDS.map((id) => pad(a.skillSeconds[id] === undefined ? '-' : `${a.skillSeconds[id].toFixed(1)}s`, 8)).join(' ');
    lines.push(
      `${pad(a.agent, 5)} ${a.team.padEnd(5)} ${a.controller.padEnd(12)} ${pad(a.kills, 6)} ${pad(a.deaths, 6)} ${pad(a.shots, 5)} ${pad(a.hits, 5)} ${pad(acc, 4)} ${pad(a.pickups, 7)}  ${skills}`,
    );
  }
  lines.push('', `state hash ${s.hash}`);
  return lines.join('\n');
}
