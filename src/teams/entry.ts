/**
 * What a team entry is: the id users type (`--blue bt-scripted`), what the team is, what it
 * needs to play, and how to build it. Needs are declared, so the registry, tournament
 * pre-flight checks and manifests, the study's checks and the page's picker can ask
 * whether a team plays here (and why not) without building it.
 */
import type { LlmAccess } from '../llm';
import type { Policy } from '../skills';
import type { DecisionSource, TeamContext, TeamController } from './controller';
import type { Strategist } from './hierarchical';
import type { Platform } from './platform';
import type { VariantSchema } from './variant';

export const TEAM_IDS = ['heuristic', 'bt', 'bt-scripted', 'llm', 'planner', 'flat', 'random', 'fixed', 'human'] as const;
export type TeamId = (typeof TEAM_IDS)[number];

export interface TeamNeeds {
  /** Trained models by name (models/<name>.onnx). */
  readonly models: readonly string[];
  /** A language model (the platform's LlmAccess must have one). */
  readonly languageModel: boolean;
  /** The way to that model when it is not the platform's own (a variant's `model=` or `adapter=`; one asking the platform's own model in another format shares its connection). */
  readonly llm?: LlmAccess;
  /** A person at the keyboard (the page). */
  readonly person: boolean;
  /** Added to a missing model's message: another way to play (e.g. LLM_SKILLS=scripted). */
  readonly modelsHint?: string;
}

export const NEEDS_NOTHING: TeamNeeds = { models: [], languageModel: false, person: false };

/** A team as a match plays it: its name (the canonical variant text) and its validated settings. */
export interface TeamVariant {
  /** 'bt' or 'bt:persona=cautious': the controller's id in summaries, replays and reports. */
  readonly name: string;
  /** What the entry's variantSchema made of the variant's settings ({} for a bare id). */
  readonly settings: Readonly<Record<string, unknown>>;
}
/** The skill implementations a strategist team may run: the scripted references or the trained policies. */
export type SkillSetKind = 'scripted' | 'trained';

/** What a strategist is built from when nothing but the match is at hand (replay verification). */
export type StrategistContext = Pick<TeamContext, 'team' | 'seed' | 'config'>;

/**
 * Where verification gets a strategist team's decisions:
 * - rederive: the strategist is deterministic, reproducible from the match alone (its
 *   config, its side's seed and the world it sees each tick), so it is built again and its
 *   decisions are derived again and compared with the file's;
 * - recorded: it cannot be (a language model's answers need the model, and may vary), so
 *   the file's decisions are taken as recorded; `why` says so in the verification.
 */
export type TeamDecisions =
  | { readonly rederive: (ctx: StrategistContext, variant: TeamVariant) => Strategist }
  | { readonly recorded: string };

/**
 * How a team's agents turn observations into actions, so a replay's actions can be
 * re-derived from its decisions:
 * - skills: a strategist whose decisions carry `source` picks a skill per agent, and each
 *   agent runs its skill from one of `skillSets` (the llm team's follow its settings);
 *   `decisions` says whether that strategist's decisions can be derived again;
 * - policy: every agent runs one policy on its own observation, with no strategist (a
 *   scripted policy, or a trained model by name);
 * - person: people play; their actions cannot be derived.
 */
export type TeamActs =
  | { readonly by: 'skills'; readonly source: DecisionSource; readonly skillSets: readonly SkillSetKind[]; readonly decisions: TeamDecisions }
  | { readonly by: 'policy'; readonly policy: Policy | { readonly model: string } }
  | { readonly by: 'person' };

export interface TeamEntry {
  readonly id: TeamId;
  readonly description: string;
  /** The settings a variant may give (`id:key=value`); absent: the team takes none. */
  readonly variantSchema?: VariantSchema;
  /** How its agents act (what replay verification re-derives). */
  readonly acts: TeamActs;
  /** What the team needs on this platform (the llm team's skills follow its settings). */
  needs(platform: Platform, variant: TeamVariant): TeamNeeds | Promise<TeamNeeds>;
  /** Builds the controller; throws a TeamUnavailable when what it needs is missing. */
  create(ctx: TeamContext, variant: TeamVariant): TeamController | Promise<TeamController>;
}

/** A team that cannot play here, and why. */
export class TeamUnavailable extends Error {
  constructor(
    readonly team: string,
    readonly reason: string,
  ) {
    super(`team '${team}' is not available: ${reason}`);
    this.name = 'TeamUnavailable';
  }
}
