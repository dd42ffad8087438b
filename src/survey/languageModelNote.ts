/**
 * What `npm run survey -- create` says about the language model a study's llm teams will
 * play with: which model is configured, whether it is the embedded one with its shipped
 * adapter (and what the adapter's card says of it) or untuned, and how it did in its latest
 * strategist exam (`npm run llm:exam`), read from the exam's JSON. It never runs the model:
 * participants should not be the first to find out how it plays.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { DEFAULT_LOCAL_MODEL, LOCAL_MODELS, adaptedModelName, engineFile, ggufModelName, shippedAdapterPath } from '../llm/localModels';
import { type Platform, teamAvailability } from '../teams';
import { cardPathOf, readAdapterCard } from '../llm/node/adapterCard';

/** The fields of an exam report (src/llm/exam.ts's ExamReport) this note reads. */
const examSummarySchema = z.object({
  format: z.literal('hillmind-strategist-exam-report'),
  model: z.string(),
  set: z.object({ situations: z.number() }),
  scores: z.object({ kappa: z.number().nullable(), heldOut: z.object({ kappa: z.number().nullable() }) }),
});

export interface ExamSummary {
  readonly path: string;
  readonly situations: number;
  readonly kappa: number | null;
  readonly heldOutKappa: number | null;
}

/** The newest exam report in `dir` for `model`, or null; files that are not exam reports are passed over. */
export function latestExam(dir: string, model: string): ExamSummary | null {
  if (!existsSync(dir)) return null;
  let best: (ExamSummary & { mtime: number }) | null = null;
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.json')) continue;
    const path = join(dir, name);
    let parsed: z.infer<typeof examSummarySchema>;
    try {
      const result = examSummarySchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
      if (!result.success) continue;
      parsed = result.data;
    } catch {
      continue; // not JSON: not an exam report
    }
    if (parsed.model !== model) continue;
    const mtime = statSync(path).mtimeMs;
    if (!best || mtime > best.mtime) best = { path, situations: parsed.set.situations, kappa: parsed.scores.kappa, heldOutKappa: parsed.scores.heldOut.kappa, mtime };
  }
  if (!best) return null;
  const { mtime: _, ...summary } = best;
  return summary;
}

/** The embedded default: the pulled Gemma 3 270M (named by the file the engine runs), and the adapter the product ships for it. */
const EMBEDDED = LOCAL_MODELS[DEFAULT_LOCAL_MODEL]!;
const EMBEDDED_MODEL = ggufModelName(engineFile(EMBEDDED).file);
const SHIPPED_ADAPTER = shippedAdapterPath(EMBEDDED);

/** What the shipped adapter's card says of it, in one line; null where `model` is not the embedded model with that adapter. */
function shippedAdapterLine(model: string): string | null {
  if (!SHIPPED_ADAPTER) return null;
  const card = readAdapterCard(cardPathOf(SHIPPED_ADAPTER));
  if (model !== adaptedModelName(EMBEDDED_MODEL, SHIPPED_ADAPTER, card.sha256)) return null;
  const teachers = card.teachers.map((t) => t.name).join(' and ');
  const init = card.training.settings.init;
  const from = typeof init === 'string' && init ? ` from the adapter ${init}` : '';
  const planner = card.exam.planner ? `; with the planner ${kappaText(card.exam.planner.kappa)}` : '';
  return `  This is the embedded Gemma 3 270M with its shipped adapter (${SHIPPED_ADAPTER}), taught by ${teachers}${from}: on its card's strategist exam (${card.exam.situations} situations) kappa with the rules ${kappaText(card.exam.kappa)}, ${kappaText(card.exam.heldOut.kappa)} where the current skill differs${planner}.`;
}

const kappaText = (k: number | null) => (k === null ? 'n/a' : k.toFixed(2));

/** Those of `teams` that play through a language model. */
export async function languageModelTeams(teams: readonly string[], platform: Platform): Promise<string[]> {
  const users: string[] = [];
  for (const id of teams) if ((await teamAvailability(id, platform)).needs.languageModel) users.push(id);
  return users;
}

/**
 * Lines for the researcher when any of `teams` plays through a language model; none
 * otherwise. `examDir` is where npm run llm:exam writes its reports.
 */
export async function languageModelNote(teams: readonly string[], platform: Platform, examDir: string): Promise<string[]> {
  const users = await languageModelTeams(teams, platform);
  if (users.length === 0) return [];
  const access = await platform.llm.availability();
  if (!access.ok) return [];
  const lines = [`Language model for ${users.join(', ')}: ${access.model} (${access.provider}).`];
  const local = access.provider.startsWith('local');
  const adapterLine = local ? shippedAdapterLine(access.model) : null;
  if (adapterLine) lines.push(adapterLine);
  if (local && access.model === EMBEDDED_MODEL) {
    lines.push(
      '  This is the embedded Gemma 3 270M, untuned (without its shipped adapter, as LLM_ADAPTER=none or a format it was not taught runs it): its choices',
      '  agree with the rules the strategist is given about as often as chance (strategist exam: kappa about 0), so participants will meet a weak llm team.',
      '  Unset LLM_ADAPTER and LLM_FORMAT for the taught model, or set OPENAI_BASE_URL and LLM_MODEL for a server model (README: The LLM strategist).',
    );
  }
  const exam = latestExam(examDir, access.model);
  if (exam) {
    lines.push(
      `  Its latest strategist exam (${exam.path}, ${exam.situations} situations): kappa with the rules ${kappaText(exam.kappa)}, ${kappaText(exam.heldOutKappa)} where the current skill differs (1: the rules, 0: chance).`,
      '  npm run llm:exam takes the exam again.',
    );
  } else {
    lines.push(`  No strategist exam of it in ${examDir}/: npm run llm:exam measures how it plays (agreement and kappa with the rules) before participants meet it.`);
  }
  return lines;
}
