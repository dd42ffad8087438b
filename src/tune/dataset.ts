/**
 * The tuning set: lessons (teachers.ts) in the model's own tokens, as the local engine will
 * read them. Each row is the whole prompt (the system prompt of the format taught, compact or
 * terse; the state, in words or codes; the chat template) and the teacher's number per agent; the tuner feeds each number but the last
 * with its comma and learns the number after the prompt and after each comma, the
 * positions the engine scores (llm/node/llamaClient.ts scoredNumbers).
 *
 * Files (JSON Lines and JSON, read by python/tune/tune_strategist.py):
 *   data.jsonl  {"tokens": [...], "labels": [skill number - 1 per agent], "taught": [bool per
 *               agent], "weight": w, "split": "train"|"held", "from": "..."}
 *   meta.json   {"numberTokens": [...], "comma": t, "base": {"path", "sha256"}, "lessons": n}
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AnswerFormat, type ChatMessage, systemPrompt, wordsToTerse } from '../llm';
import { DEFAULT_CONFIG, Rng } from '../sim';
import { SKILLS, SKILL_IDS } from '../skills';
import type { Lesson } from './teachers';

/** What turns a prompt into the model's tokens (the local engine's client). */
export interface PromptTokenizer {
  promptTokenIds(messages: readonly ChatMessage[]): number[];
  answerTokenIds(max: number): { readonly numbers: readonly number[]; readonly comma: number };
}

export interface TuningRow {
  readonly tokens: readonly number[];
  readonly labels: readonly number[];
  readonly taught: readonly boolean[];
  readonly weight: number;
  readonly split: 'train' | 'held';
  readonly from: string;
}

export interface TuningSetOptions {
  /** Share of distinct prompts held out of training to watch for overfitting (default 0.1). */
  readonly heldOut?: number;
  readonly seed?: number;
  /** The prompt taught (default compact): lessons are written in words, and terse rows read them in codes. */
  readonly format?: 'compact' | 'terse';
}

/**
 * Lessons as rows. Equal lessons (the same prompt and choice) become one row with their
 * weights added; a prompt's lessons all go to the same side of the split, so the held-out
 * part holds only prompts training never saw.
 */
export function tuningRows(lessons: readonly Lesson[], tokenizer: PromptTokenizer, options: TuningSetOptions = {}): TuningRow[] {
  const merged = new Map<string, Lesson>();
  for (const lesson of lessons) {
    if (lesson.choice.length !== lesson.taught.length) throw new Error(`${lesson.from}: ${lesson.choice.length} skills but ${lesson.taught.length} taught flags`);
    const key = `${lesson.style ?? ''}\u0000${lesson.prompt}\u0000${lesson.choice.join(',')}\u0000${lesson.taught.join(',')}`;
    const known = merged.get(key);
    merged.set(key, known ? { ...known, weight: known.weight + lesson.weight } : lesson);
  }
  // A state is held out with every style it comes in: the held-out part is states training never saw.
  const prompts = [...new Set([...merged.values()].map((l) => l.prompt))];
  const rng = new Rng(options.seed ?? 1);
  const held = new Set(prompts.filter(() => rng.next() < (options.heldOut ?? 0.1)));
  const format: AnswerFormat = options.format ?? 'compact';
  return [...merged.values()].map((lesson) => {
    const messages: ChatMessage[] = [
      { role: 'system', content: systemPrompt(format, lesson.choice.length, DEFAULT_CONFIG, lesson.style) },
      { role: 'user', content: format === 'terse' ? wordsToTerse(lesson.prompt) : lesson.prompt },
    ];
    return {
      tokens: tokenizer.promptTokenIds(messages),
      labels: lesson.choice.map((skill) => SKILLS[skill].number - 1),
      taught: [...lesson.taught],
      weight: lesson.weight,
      split: held.has(lesson.prompt) ? 'held' : 'train',
      from: lesson.from,
    };
  });
}

export interface BaseModel {
  readonly path: string;
  readonly sha256: string;
}

/** Write data.jsonl and meta.json into `dir`; returns the rows' counts. */
export function writeTuningSet(dir: string, rows: readonly TuningRow[], tokenizer: PromptTokenizer, base: BaseModel): { readonly train: number; readonly held: number } {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'data.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const { numbers, comma } = tokenizer.answerTokenIds(SKILL_IDS.length);
  writeFileSync(join(dir, 'meta.json'), `${JSON.stringify({ numberTokens: numbers, comma, base, lessons: rows.length }, null, 1)}\n`);
  const held = rows.filter((r) => r.split === 'held').length;
  return { train: rows.length - held, held };
}
