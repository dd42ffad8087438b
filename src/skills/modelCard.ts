/**
 * The card beside every shipped policy (models/<name>.json): what it reads and writes,
 * how it was trained, how to reproduce it, and how well it does. Loading checks the card
 * against this build's specs, the model file against the card's SHA-256, and runs the
 * card's probe through the model, so a corrupted or mismatched file fails with a message
 * that names the problem.
 */
import { z } from 'zod';
import { parseJsonText } from '../sim';

export const MODEL_CARD_FORMAT = 'hillmind-policy';
export const MODEL_CARD_VERSION = 1;
export const POLICY_INPUT = 'obs';
export const POLICY_OUTPUT = 'action_mean';
export const POLICY_OUTPUT_LAYOUT = ['move_mean', 'turn_mean', 'strafe_mean', 'dash_logit', 'fire_logit'] as const;

export const modelCardSchema = z.object({
  format: z.literal(MODEL_CARD_FORMAT),
  version: z.literal(MODEL_CARD_VERSION),
  name: z.string(),
  kind: z.enum(['skill', 'flat']),
  obsSpecVersion: z.number().int(),
  actionSpecVersion: z.number().int(),
  /** SHA-256 of <name>.onnx (lowercase hex): loading refuses any other file, down to one flipped bit. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'expected the 64 hex digits of the model file\'s SHA-256'),
  io: z.object({
    input: z.string(),
    output: z.string(),
    inputShape: z.tuple([z.string(), z.number().int()]),
    outputShape: z.tuple([z.string(), z.number().int()]),
    outputLayout: z.array(z.string()),
  }),
  network: z.object({ hidden: z.array(z.number().int()), activation: z.string() }),
  /** Log standard deviations of the Gaussian heads at the end of training (play is deterministic). */
  logStd: z.array(z.number()),
  /** A few observations and the outputs they gave at export: the loader checks them. */
  probe: z.object({ inputs: z.array(z.array(z.number())), outputs: z.array(z.array(z.number())), tolerance: z.number() }),
  training: z.object({
    scenario: z.string(),
    opponent: z.string(),
    /** Whose actions the teacher term pulled the policy towards, and how (absent: no teacher). */
    teacher: z.string().nullable().optional(),
    /** What the reward was, where it differs from the scenario's own (a shot cost). */
    reward: z.string().optional(),
    /**
     * Agents per team in the training matches: the only team size the policy plays. Cards
     * written before this field all come from the 2v2 training environment.
     */
    agentsPerTeam: z.number().int().positive().default(2),
    config: z.record(z.string(), z.unknown()),
    seed: z.number().int(),
    steps: z.number().int(),
    wallSeconds: z.number(),
    stepsPerSecond: z.number(),
    reproduce: z.string(),
  }),
  curve: z.object({
    /** Every update's mean episodic return, downsampled to at most 200 points. */
    points: z.array(z.object({ steps: z.number(), meanReturn: z.number().nullable() })),
    finalMeanReturn: z.number().nullable(),
    plot: z.string(),
  }),
  evaluation: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.string(),
});

export type ModelCard = z.infer<typeof modelCardSchema>;

/** Parse a card's JSON text; throws an Error naming the file and the problem. */
export function parseModelCard(text: string, source: string): ModelCard {
  const parsed = modelCardSchema.safeParse(parseJsonText(text, source));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${source} is not a valid model card at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}
