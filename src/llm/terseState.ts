/**
 * The terse state: the user prompt's situation in codes of one token each, for small local
 * models (the `terse` format). Reading the prompt is nearly all of a local decision's time,
 * and it grows with the prompt's tokens (`npm run bench -- --only exam` prints a decision's
 * time in each format); the words form (prompt.ts userPrompt) takes about 82 of Gemma 3's
 * tokens a state, this about 20. Each code is one token of that vocabulary, space included
 * (" LOW", " IN", " none", " combat", " plenty", " ours"); numbers are single digits.
 *
 *   LOW IN MID none combat     one line per agent, in agent order: health; the zone (IN when
 *   dead navigate              inside, else its distance); the nearest visible enemy's
 *   MID plenty ours 3 5        distance, or none; the nearest pickup's, or none; the skill it
 *                              runs (none before the first choice). An eliminated agent's
 *                              line is dead and its skill. Last, the team: how far apart the
 *                              agents stand (none while fewer than two are alive), the time
 *                              left, who holds the zone (ours, theirs, empty, contested), and
 *                              our progress and the enemy's in tenths of the hold that wins.
 *
 * The system prompt's legend (TERSE_LEGEND) says the same to the model. wordsToTerse reads
 * a words prompt into this form, so lessons and cached prompts written in words teach a
 * terse model too.
 */
import type { AgentSituation, TeamSituation } from '../sim';
import { SKILL_IDS, SKILLS, type SkillId } from '../skills';

/** What the system prompt says of the terse state. */
export const TERSE_LEGEND = [
  'State: one line per agent, in agent order: health (HIGH, MEDIUM, LOW); the zone, IN when inside it, else its distance;',
  'the nearest visible enemy\'s distance, or none; the nearest health pickup\'s distance, or none; the skill the agent runs.',
  'An eliminated agent\'s line is dead and its skill. The last line is the team: how far apart its agents stand (none with',
  'one eliminated); time left (plenty, limited, urgent); who holds the zone (ours, theirs, empty, contested); our progress',
  'and the enemy\'s, in tenths of the hold that wins. Distances are NEAR, MID or FAR.',
].join(' ');

type Band = 'NEAR' | 'MID' | 'FAR';
type Holder = 'ours' | 'theirs' | 'empty' | 'contested';

/** One agent's line: what the words form says of it, in codes. */
interface TerseAgent {
  readonly alive: boolean;
  readonly health?: string;
  readonly zone?: 'IN' | Band;
  readonly enemy?: Band | null;
  readonly pickup?: Band | null;
  readonly skill: SkillId | null;
}

interface TerseTeam {
  readonly apart: Band | null;
  readonly time: string;
  readonly holder: Holder;
  readonly us: number;
  readonly enemy: number;
}

/** Tenths of the hold, as one digit: 100% never shows (the game is won), so 9 is the top. */
const tenths = (percent: number) => Math.max(0, Math.min(9, Math.floor(percent / 10)));

function render(agents: readonly TerseAgent[], team: TerseTeam): string {
  const lines = agents.map((a) => {
    const skill = a.skill ?? 'none';
    if (!a.alive) return `dead ${skill}`;
    return `${a.health} ${a.zone} ${a.enemy ?? 'none'} ${a.pickup ?? 'none'} ${skill}`;
  });
  lines.push(`${team.apart ?? 'none'} ${team.time.toLowerCase()} ${team.holder} ${tenths(team.us)} ${tenths(team.enemy)}`);
  return lines.join('\n');
}

function terseAgent(a: AgentSituation, skill: SkillId | undefined): TerseAgent {
  if (!a.alive) return { alive: false, skill: skill ?? null };
  return { alive: true, health: a.health, zone: a.inZone ? 'IN' : a.zone, enemy: a.enemyVisible ? a.enemy : null, pickup: a.pickupPresent ? a.pickup : null, skill: skill ?? null };
}

function holderOf(s: TeamSituation): Holder {
  if (s.zoneStatus === 'empty' || s.zoneStatus === 'contested') return s.zoneStatus;
  return s.zoneStatus === s.teamName ? 'ours' : 'theirs';
}

/** The terse user prompt of a situation, with each agent's current skill. */
export function terseState(situation: TeamSituation, current: readonly SkillId[]): string {
  return render(
    situation.agents.map((a, slot) => terseAgent(a, current[slot])),
    { apart: situation.allyDistance, time: situation.time, holder: holderOf(situation), us: situation.progressPercent, enemy: situation.enemyProgressPercent },
  );
}

const SKILL_BY_NAME = new Map<string, SkillId | null>([...SKILL_IDS.map((id) => [SKILLS[id].name, id] as const), ['none', null]]);
const BAND = '(NEAR|MID|FAR)';
const WORDS_AGENT = new RegExp(`^Agent \\d+: health (HIGH|MEDIUM|LOW); zone ${BAND}, in zone (yes|no); enemy visible (?:yes, ${BAND}|no); pickup present (?:yes, ${BAND}|no); skill (\\w+)\\.$`);
const WORDS_DEAD = /^Agent \d+: eliminated, respawning at base; skill (\w+)\.$/;
const WORDS_TEAM = new RegExp(`^Team: (?:closest )?agents apart (?:${BAND}|n/a \\([^)]*\\)); time (PLENTY|LIMITED|URGENT); zone (empty|contested|held by us|held by the enemy); progress us (\\d+)%, enemy (\\d+)%\\.$`);
const HOLDER: Readonly<Record<string, Holder>> = { empty: 'empty', contested: 'contested', 'held by us': 'ours', 'held by the enemy': 'theirs' };

function skillNamed(name: string, line: string): SkillId | null {
  const skill = SKILL_BY_NAME.get(name);
  if (skill === undefined) throw new Error(`not a strategist prompt line (unknown skill '${name}'): ${line}`);
  return skill;
}

/**
 * A words prompt (prompt.ts userPrompt) in the terse form. Throws, naming the line, on
 * text that is not a words prompt: a lesson is never taught from a prompt half read.
 */
export function wordsToTerse(words: string): string {
  const agents: TerseAgent[] = [];
  let team: TerseTeam | null = null;
  for (const line of words.split('\n')) {
    let m: RegExpExecArray | null;
    if ((m = WORDS_DEAD.exec(line))) agents.push({ alive: false, skill: skillNamed(m[1]!, line) });
    else if ((m = WORDS_AGENT.exec(line))) {
      const [, health, zone, inZone, enemy, pickup, skill] = m;
      agents.push({ alive: true, health: health!, zone: inZone === 'yes' ? 'IN' : (zone as Band), enemy: (enemy as Band | undefined) ?? null, pickup: (pickup as Band | undefined) ?? null, skill: skillNamed(skill!, line) });
    } else if ((m = WORDS_TEAM.exec(line)) && team === null) {
      team = { apart: (m[1] as Band | undefined) ?? null, time: m[2]!, holder: HOLDER[m[3]!]!, us: Number(m[4]), enemy: Number(m[5]) };
    } else throw new Error(`not a strategist prompt line (expected "Agent N: ..." or one "Team: ..." line): ${line}`);
  }
  if (team === null || agents.length === 0) throw new Error('not a strategist prompt: it needs agent lines and a Team line');
  return render(agents, team);
}

/** What the rule-based client reads of one agent (ruleClient.ts), in either form. */
export interface AgentFacts {
  readonly alive: boolean;
  readonly low: boolean;
  readonly pickup: boolean;
  readonly nearZone: boolean;
  readonly enemy: boolean;
}

/** An eliminated agent: nothing to read but that it is down. */
export const ELIMINATED_FACTS: AgentFacts = { alive: false, low: false, pickup: false, nearZone: false, enemy: false };

const HEALTH = new Set(['HIGH', 'MEDIUM', 'LOW']);

/** The agents' facts from a terse state's lines (the team line and anything else are skipped). */
export function terseAgentFacts(text: string): AgentFacts[] {
  const facts: AgentFacts[] = [];
  for (const line of text.split('\n')) {
    const codes = line.trim().split(' ');
    if (codes[0] === 'dead' && codes.length === 2) facts.push(ELIMINATED_FACTS);
    else if (codes.length === 5 && HEALTH.has(codes[0]!)) {
      const [health, zone, enemy, pickup] = codes;
      facts.push({ alive: true, low: health === 'LOW', pickup: pickup !== 'none', nearZone: zone === 'IN' || zone === 'NEAR', enemy: enemy !== 'none' });
    }
  }
  return facts;
}
