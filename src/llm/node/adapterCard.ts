/**
 * The adapter's card: what a tuned strategist adapter is, beside its GGUF file under the
 * same name (.json). Like the skills' model cards it says where the artifact came from
 * (teachers, data, steps, the base model's digest) and how it does (the strategist exam,
 * games), so a reader can judge and remake it. Validated whole when read.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ANSWER_FORMATS } from '../prompt';

export const ADAPTER_CARD_FORMAT = 'hillmind-strategist-adapter';
export const ADAPTER_CARD_VERSION = 1;

const examSummary = z.object({
  set: z.string(),
  situations: z.number().int(),
  agreement: z.number(),
  kappa: z.number().nullable(),
  heldOut: z.object({ agreement: z.number(), kappa: z.number().nullable() }),
  /** Agreement and kappa with the planner's labels on the same choices (exam sets from v2; absent on v1's). */
  planner: z.object({ agreement: z.number(), kappa: z.number().nullable(), heldOut: z.object({ agreement: z.number(), kappa: z.number().nullable() }) }).optional(),
  cmiBits: z.number(),
  mostCommon: z.object({ answer: z.string(), share: z.number() }),
  skillShares: z.record(z.string(), z.number()),
  latencyMs: z.object({ p50: z.number(), p95: z.number() }).nullable(),
});
export type ExamSummary = z.infer<typeof examSummary>;

const gameRow = z.object({
  opponent: z.string(),
  games: z.number().int(),
  wins: z.number().int(),
  losses: z.number().int(),
  draws: z.number().int(),
  /** Share of all games won, with its 95% Wilson interval. */
  winRate: z.object({ estimate: z.number(), lower: z.number(), upper: z.number() }),
  /** Share of the decisive games won. */
  decisiveShare: z.number().nullable(),
  /** The team's result in each game, in the plan's order (W, L or D): two adapters that played the same games compare game by game. */
  outcomes: z.string().regex(/^[WLD]*$/).optional(),
});
export type GameRow = z.infer<typeof gameRow>;

const trainingRun = z.object({
  settings: z.record(z.string(), z.unknown()),
  examples: z.object({ train: z.number().int(), held: z.number().int() }),
  /** Agreement with the teacher on held-out prompts, per evaluation step. */
  history: z.array(z.record(z.string(), z.unknown())),
  seconds: z.number(),
});

/**
 * A round of learning from play: what it kept and how it compared. `imitation` is the adapter
 * the round started from and played with (imitation's in the first round; in a later one,
 * the adapter kept so far), `shipped` says whether the round's adapter replaced it.
 */
const playRound = z.object({
  games: z.number().int(),
  /** Games the round's lessons came from: those won (labels won), or every one that asked (labels rules and planner). */
  won: z.number().int(),
  lessons: z.number().int(),
  temperature: z.number(),
  /**
   * What the round taught: its own decisions in games won, the rules' choices on every
   * situation asked (DAgger), or the planner's at the world of each (expert iteration); absent: won.
   */
  labels: z.enum(['won', 'rules', 'planner']).optional(),
  imitation: z.object({ exam: examSummary, games: z.array(gameRow) }),
  afterPlay: z.object({ exam: examSummary, games: z.array(gameRow) }),
  shipped: z.enum(['imitation', 'after-play']),
  why: z.string(),
});

export const adapterCardSchema = z.object({
  format: z.literal(ADAPTER_CARD_FORMAT),
  version: z.literal(ADAPTER_CARD_VERSION),
  name: z.string(),
  /** The adapter file's sha256. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().positive(),
  base: z.object({ model: z.string(), file: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
  lora: z.object({ rank: z.number().int(), alpha: z.number(), layers: z.array(z.number().int()), targets: z.array(z.string()) }),
  /** The answer format it was tuned for, and how the engine reads it. */
  /** The format it was taught in (prompt.ts), and so is asked in; cards before the terse format were compact. */
  prompt: z.enum(ANSWER_FORMATS).default('compact'),
  decoding: z.string(),
  teachers: z.array(z.object({ name: z.string(), describe: z.string(), lessons: z.number().int() })),
  training: trainingRun,
  /** The round of learning from play, when one ran: what it kept and how it compared; later rounds, when more ran (--play-rounds). */
  fromPlay: playRound.extend({ later: z.array(playRound.extend({ round: z.number().int().min(2) })).optional() }).optional(),
  exam: examSummary,
  /** The untuned model on the same exam, for comparison. */
  examUntuned: examSummary.optional(),
  games: z.array(gameRow),
  reproduce: z.string(),
  createdAt: z.string(),
});
export type AdapterCard = z.infer<typeof adapterCardSchema>;

/** The card's path beside its adapter: the same name, .json. */
export function cardPathOf(adapterPath: string): string {
  return adapterPath.replace(/\.gguf$/i, '.json');
}

/** Read and check a card whole; says which file and what is wrong. */
export function readAdapterCard(path: string): AdapterCard {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read the adapter card ${path}: ${(err as Error).message}`);
  }
  const parsed = adapterCardSchema.safeParse(json);
  if (!parsed.success) throw new Error(`the adapter card ${path} is not a ${ADAPTER_CARD_FORMAT} card: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}
