/**
 * Turning a model's text into one skill per agent. Both formats are read whichever was
 * asked for (a model told to answer "1,3" sometimes writes JSON, and the other way round);
 * text around the answer, code fences and <think> blocks are tolerated. Validation (zod)
 * rejects unknown skills and the wrong number of agents, with a reason a person can read.
 */
import { z } from 'zod';
import { SKILL_IDS, SKILLS, type SkillId, skillByNumber } from '../skills';

export const INVALID_ANSWER_KINDS = ['empty', 'unparsable', 'unknown-skill', 'wrong-count'] as const;
export type InvalidAnswerKind = (typeof INVALID_ANSWER_KINDS)[number];

export type ParsedAnswer =
  | { readonly ok: true; readonly skills: SkillId[]; readonly rationale?: string; readonly format: 'compact' | 'json' }
  | { readonly ok: false; readonly kind: InvalidAnswerKind; readonly reason: string };

const RATIONALE_MAX = 200;

/** The validator of a decision for `agentCount` agents. */
export function skillsSchema(agentCount: number) {
  return z.array(z.enum(SKILL_IDS)).length(agentCount);
}

/** One item of an answer as the model wrote it: a number, a name, "3 (Secure)". */
function toSkill(item: unknown): string {
  if (typeof item === 'number') return skillByNumber(item) ?? String(item);
  if (typeof item !== 'string') return JSON.stringify(item);
  const word = item.trim().toLowerCase().replace(/^["'`*]+|["'`*.]+$/g, '');
  if (/^\d+$/.test(word)) return skillByNumber(Number(word)) ?? word;
  const named = SKILL_IDS.find((id) => word === id || word === SKILLS[id].name.toLowerCase());
  if (named) return named;
  const numbered = /^(\d+)\b/.exec(word);
  if (numbered) return skillByNumber(Number(numbered[1])) ?? word;
  return word;
}

function validate(items: readonly unknown[], agentCount: number, format: 'compact' | 'json', rationale?: string): ParsedAnswer {
  const skills = items.map(toSkill);
  const result = skillsSchema(agentCount).safeParse(skills);
  if (result.success) {
    return { ok: true, skills: result.data, format, ...(rationale ? { rationale } : {}) };
  }
  if (skills.length !== agentCount) {
    return { ok: false, kind: 'wrong-count', reason: `expected ${agentCount} skills (one per agent), got ${skills.length}` };
  }
  const bad = skills.findIndex((s) => !(SKILL_IDS as readonly string[]).includes(s));
  return {
    ok: false,
    kind: 'unknown-skill',
    reason: `agent ${bad + 1}: '${skills[bad]}' is not a skill (expected 1-${SKILL_IDS.length} or ${SKILL_IDS.join(', ')})`,
  };
}

/** Remove what models wrap answers in: reasoning blocks and code fences. */
function unwrap(text: string): string {
  return text
    // An unclosed block (an answer cut off mid-thought) runs to the end.
    .replace(/<think>[\s\S]*?(?:<\/think>|$)/gi, ' ')
    .replace(/```[a-z]*\n?/gi, '\n')
    .trim();
}

const jsonAnswer = z.object({
  skills: z.array(z.unknown()),
  rationale: z.string().optional(),
});

/** The first balanced {...} block, or null. */
function jsonBlock(text: string): string | null {
  const start = text.indexOf('{');
  if (start < 0) return null;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return null;
}

function parseJson(text: string, agentCount: number): ParsedAnswer | null {
  const block = jsonBlock(text);
  if (block === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(block);
  } catch {
    return null;
  }
  const parsed = jsonAnswer.safeParse(value);
  if (!parsed.success) return null;
  const rationale = parsed.data.rationale?.split('\n')[0]!.trim().slice(0, RATIONALE_MAX);
  return validate(parsed.data.skills, agentCount, 'json', rationale || undefined);
}

const ITEM = String.raw`(?:\d+|navigate|combat|secure|retreat)`;
/** A whole line that is just the answer, perhaps labelled and quoted: `Answer: "1, 3"`. */
const ANSWER_LINE = new RegExp(String.raw`^(?:[a-z ]{0,20}:)?[\s"'\x60*\[(]*(${ITEM}(?:\s*[,;]\s*${ITEM})*)[\s"'\x60*\].)]*$`, 'i');
const LIST_IN_TEXT = new RegExp(String.raw`(?<!\w|\d\.)${ITEM}(?:\s*,\s*${ITEM})+(?!\w|\.\d)`, 'gi');

function parseCompact(text: string, agentCount: number): ParsedAnswer | null {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  // Prefer a line that is only the answer (the last, as models explain first), then the
  // last comma-separated list anywhere in the text.
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = ANSWER_LINE.exec(lines[i]!);
    if (m) return validate(m[1]!.split(/\s*[,;]\s*/), agentCount, 'compact');
  }
  const lists = [...text.matchAll(LIST_IN_TEXT)];
  const last = lists[lists.length - 1];
  if (last) return validate(last[0].split(/\s*,\s*/), agentCount, 'compact');
  return null;
}

/** Parse and validate a model's answer for a team of `agentCount` agents. */
export function parseAnswer(text: string | null | undefined, agentCount: number): ParsedAnswer {
  const body = unwrap(text ?? '');
  if (body === '') return { ok: false, kind: 'empty', reason: 'the answer is empty' };
  const result = (body.includes('{') ? parseJson(body, agentCount) : null) ?? parseCompact(body, agentCount);
  if (result) return result;
  const preview = body.length > 60 ? `${body.slice(0, 57)}...` : body;
  return { ok: false, kind: 'unparsable', reason: `no skill per agent found in ${JSON.stringify(preview)}` };
}
