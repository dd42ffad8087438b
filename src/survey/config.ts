/**
 * A study's configuration: a JSON file validated here (zod), with the reference study's
 * protocol as the defaults. Unknown keys are refused, so a typo never silently falls back
 * to a default.
 *
 * A play study (`kind: "play"`): each participant plays one block of `episodesPerBlock`
 * episodes against every team in `teams` (order counterbalanced by the server), rates each
 * block on the Likert items and open questions, then makes the forced choice, answers the
 * background questions and gets the completion code or redirect.
 *
 * An observe study (`kind: "observe"`): each participant watches `observe.clips` stored
 * episodes (people's play from other studies and bot-versus-bot matches) and tags every
 * agent as a person or a bot.
 */
import { z } from 'zod';
import { numberWord, rulesText, secondsText } from '../match/rulesText';
import { DEFAULT_CONFIG, type GameConfig, parseJsonText } from '../sim';
import { DEFAULT_LLM_RUNS, LLM_RUNS, type LlmRuns } from '../llm/pageAccess';
import { TEAM_IDS } from '../teams/entry';
import { resolveTeam } from '../teams/registry';

/** Team ids an AI plays (every id but 'human'). */
export const AI_TEAM_IDS = TEAM_IDS.filter((id) => id !== 'human') as Exclude<(typeof TEAM_IDS)[number], 'human'>[];
/** An AI team id, or a variant of one (`bt:persona=cautious`). */
export type AiTeamId = (typeof AI_TEAM_IDS)[number] | `${(typeof AI_TEAM_IDS)[number]}:${string}`;

/** The teammate value meaning "a second person plays the other agent of the participant's team". */
export const PERSON_TEAMMATE = 'person';

/** The study's teams: LLM+RL, the behavior tree over RL skills and flat RL. */
export const DEFAULT_TEAMS: readonly AiTeamId[] = ['bt', 'llm', 'flat'];

/** An AI team id or variant (`bt:persona=cautious`), as its canonical name; 'human' is not an AI team. */
const aiTeam = z.string().transform((text, ctx): AiTeamId => {
  try {
    const { entry, variant } = resolveTeam(text);
    if (entry.id !== 'human') return variant.name as AiTeamId;
    ctx.addIssue({ code: 'custom', message: `'human' is not an AI team: expected one of ${AI_TEAM_IDS.join(', ')} or a variant of one` });
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
  }
  return z.NEVER;
});
const text = (max: number) => z.string().trim().min(1).max(max);
const itemId = z.string().regex(/^[a-z][a-z0-9_]{0,31}$/, 'ids are 1-32 lower-case letters, digits or _, starting with a letter');
export const STUDY_ID_PATTERN = /^[a-z0-9][a-z0-9-]{1,47}$/;

export const likertItemSchema = z.strictObject({
  id: itemId,
  prompt: text(300),
  low: text(60).default('Strongly disagree'),
  high: text(60).default('Strongly agree'),
  points: z.number().int().min(3).max(11).default(5),
});
export type LikertItem = z.infer<typeof likertItemSchema>;

export const openQuestionSchema = z.strictObject({
  id: itemId,
  prompt: text(500),
  required: z.boolean().default(false),
  maxLength: z.number().int().min(1).max(10_000).default(2000),
});
export type OpenQuestion = z.infer<typeof openQuestionSchema>;

export const backgroundQuestionSchema = z.strictObject({
  id: itemId,
  prompt: text(300),
  options: z.array(text(120)).min(2).max(12),
});
export type BackgroundQuestion = z.infer<typeof backgroundQuestionSchema>;

/** The study's five ratings, asked after every block. */
export const DEFAULT_LIKERT: readonly LikertItem[] = [
  { id: 'challenge', prompt: 'This team was challenging to play against.' },
  { id: 'skill', prompt: "This team's players were skilled." },
  { id: 'coordination', prompt: "This team's players coordinated well with each other." },
  { id: 'enjoyment', prompt: 'I enjoyed playing against this team.' },
  { id: 'humanlike', prompt: "This team's players behaved like human players." },
].map((item) => likertItemSchema.parse(item));

export const DEFAULT_OPEN: readonly OpenQuestion[] = [
  openQuestionSchema.parse({ id: 'behaviours', prompt: 'What behaviours did you notice in this team? Anything that stood out, good or bad.' }),
];

export const DEFAULT_BACKGROUND: readonly BackgroundQuestion[] = [
  { id: 'gaming', prompt: 'How often do you play video games?', options: ['Never', 'Less than once a month', 'A few times a month', 'A few times a week', 'Every day'] },
  {
    id: 'team_games',
    prompt: 'How much experience do you have with team-based action or shooter games?',
    options: ['None', 'A little', 'Some', 'A lot', 'I play competitively'],
  },
];

/**
 * The consent page's contact and ethics lines until the researcher sets them: they say
 * what to fill in, and `npm run survey -- create` warns while either is left as it is.
 */
export const DEFAULT_CONTACT = 'Not filled in yet: the researcher sets "contact" in the study config to a name and an email address for questions about the study.';
export const DEFAULT_ETHICS = 'Not filled in yet: the researcher sets "ethics" in the study config to the ethics committee that approved the study and its reference number.';

/** The consent fields still at their fill-in-me defaults, by config key. */
export function consentPlaceholders(config: Pick<StudyConfig, 'contact' | 'ethics'>): ('contact' | 'ethics')[] {
  return [...(config.contact === DEFAULT_CONTACT ? ['contact' as const] : []), ...(config.ethics === DEFAULT_ETHICS ? ['ethics' as const] : [])];
}

const practiceSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** Who the practice round is against (never rated). */
  opponent: aiTeam.default('heuristic'),
  episodeSeconds: z.number().min(1).max(600).default(30),
});

const observeSchema = z.strictObject({
  /** Play studies whose episodes are shown; empty means every play study in the database. */
  fromStudies: z.array(z.string().regex(STUDY_ID_PATTERN)).max(50).default([]),
  /** Replays each participant watches and judges. */
  clips: z.number().int().min(1).max(50).default(6),
  /** Bot-versus-bot episodes made when the study is created (the "all bots" clips). */
  botMatches: z.number().int().min(0).max(200).default(4),
  /** Teams for those matches; default the study's teams. */
  botTeams: z.array(aiTeam).min(1).max(12).optional(),
  /** Show people's episodes from play studies (default true). */
  includePeople: z.boolean().default(true),
});

const completionSchema = z.strictObject({
  /** Shown at the end (e.g. the Prolific completion code). Generated when neither code nor redirect is set. */
  code: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).optional(),
  /** Where participants go at the end (http or https), e.g. the platform's completion URL. */
  redirectUrl: z.url({ protocol: /^https?$/ }).max(2000).optional(),
  message: text(2000).default('Thank you for taking part.'),
});

export const studyConfigSchema = z
  .strictObject({
    /** URL-safe id (lower-case letters, digits, '-'); generated when absent. */
    id: z.string().regex(STUDY_ID_PATTERN, 'a study id is 2-48 lower-case letters, digits or -').optional(),
    kind: z.enum(['play', 'observe']).default('play'),
    title: text(200).default('Hillmind study'),
    teams: z
      .array(aiTeam)
      .min(2)
      .max(6)
      .default([...DEFAULT_TEAMS])
      .refine((t) => new Set(t).size === t.length, 'teams must not repeat'),
    episodesPerBlock: z.number().int().min(1).max(30).default(6),
    /** Length of an episode before it is a draw; default the game's (DEFAULT_CONFIG.episodeSeconds, studyGameConfig). */
    episodeSeconds: z.number().min(1).max(600).optional(),
    /** The AI team playing beside the participant, or "person" for a second person at the same computer. */
    teammate: z.union([aiTeam, z.literal(PERSON_TEAMMATE)]).default('bt-scripted'),
    practice: practiceSchema.prefault({}),
    likert: z
      .array(likertItemSchema)
      .max(20)
      .default(() => [...DEFAULT_LIKERT])
      .refine((items) => new Set(items.map((i) => i.id)).size === items.length, 'Likert ids must not repeat'),
    open: z
      .array(openQuestionSchema)
      .max(5)
      .default(() => [...DEFAULT_OPEN])
      .refine((items) => new Set(items.map((i) => i.id)).size === items.length, 'open question ids must not repeat'),
    forcedChoice: z
      .strictObject({
        prompt: text(300).default('Which team felt most like competent human players?'),
        reasonPrompt: text(300).default('Why? What did that team do that felt like competent human players?'),
        reasonRequired: z.boolean().default(true),
        maxLength: z.number().int().min(1).max(10_000).default(2000),
      })
      .prefault({}),
    background: z
      .array(backgroundQuestionSchema)
      .max(10)
      .default(() => [...DEFAULT_BACKGROUND])
      .refine((items) => new Set(items.map((i) => i.id)).size === items.length, 'background ids must not repeat'),
    /** Default: studyConsent's, from the study's settings. */
    consent: text(20_000).optional(),
    /** Who participants write to with questions (a name and an email address), shown with the consent text. */
    contact: text(1000).default(DEFAULT_CONTACT),
    /** The ethics approval (committee and reference), shown with the consent text. */
    ethics: text(1000).default(DEFAULT_ETHICS),
    /** Default: studyInstructions', from the study's settings. */
    instructions: text(20_000).optional(),
    completion: completionSchema.prefault({}),
    observe: observeSchema.prefault({}),
    /** A participant idle this long no longer holds a counterbalancing slot. */
    abandonAfterMinutes: z.number().int().min(1).max(7 * 24 * 60).default(120),
    /**
     * How often a participant may start an episode again after leaving it before its end
     * (a reload, a closed tab). Each restart is recorded with the attempt it replaced; one
     * more and the episode is left unplayed and the study moves on, so nobody can redo an
     * episode they were losing until they win. 0: no restarts. Practice is not limited.
     */
    restartsPerEpisode: z.number().int().min(0).max(10).default(1),
    /**
     * MiB of replays one participant may store (episodes and left episodes together); past
     * it an episode is refused with a 413 that says so. An honest participant of the
     * default protocol stores about 1.6 MiB; without a quota, episodes padded to the 8 MiB
     * request limit stored 116 MiB for one participant.
     */
    storageQuotaMiB: z.number().min(0.1).max(1024).default(16),
    /**
     * Where the llm team's model runs for participants: 'server' (the server's model, through
     * its proxy), 'browser' (each participant's page runs it: a 256 MB download, refused
     * where the page cannot), 'auto' (the page where it can, else the server). Absent: the
     * server's (DEFAULT_LLM_RUNS).
     */
    llmRuns: z.enum(LLM_RUNS).optional(),
  });

export type StudyConfigInput = z.input<typeof studyConfigSchema>;
/** The settings of a study, before its words for people are computed from them. */
export type StudySettings = Omit<z.infer<typeof studyConfigSchema>, 'consent' | 'instructions'>;
/** A study's config: its settings, and its consent and instructions (its own, or computed from the settings). */
export type StudyConfig = StudySettings & { consent: string; instructions: string };

/** The game config of a study's episodes: the standard one, with the study's episode length (the server expects exactly this). */
export function studyGameConfig(episodeSeconds: number | null | undefined): GameConfig {
  return episodeSeconds ? { ...DEFAULT_CONFIG, episodeSeconds } : DEFAULT_CONFIG;
}

/**
 * A participant's pace, in seconds, for the time a study takes: set so that the reference
 * protocol (three blocks of six 60-second episodes, five ratings and a question a block)
 * comes to the 30 minutes its consent text said, and six clips to its 15.
 */
const PACE = {
  /** Reading the consent page and the instructions. */
  reading: 120,
  /** Around each episode: the 3-2-1 and the result. */
  betweenEpisodes: 10,
  likertItem: 8,
  openQuestion: 60,
  forcedChoice: 90,
  backgroundQuestion: 10,
  /** Tagging the players of one clip, beyond watching it. */
  judgingClip: 60,
} as const;

/** Minutes a participant needs for the study, counting every episode at its full length: whole minutes below 10, else to the nearest 5. */
export function studyMinutes(config: StudySettings): number {
  const episodeSeconds = studyGameConfig(config.episodeSeconds).episodeSeconds;
  let seconds = PACE.reading + config.background.length * PACE.backgroundQuestion;
  if (config.kind === 'observe') seconds += config.observe.clips * (episodeSeconds + PACE.judgingClip);
  else {
    const rating = config.likert.length * PACE.likertItem + config.open.length * PACE.openQuestion;
    seconds += config.teams.length * (config.episodesPerBlock * (episodeSeconds + PACE.betweenEpisodes) + rating) + PACE.forcedChoice;
    if (config.practice.enabled) seconds += config.practice.episodeSeconds + PACE.betweenEpisodes;
  }
  const minutes = seconds / 60;
  return minutes < 10 ? Math.max(1, Math.round(minutes)) : Math.round(minutes / 5) * 5;
}

/** "Team 1, Team 2 and Team 3". */
function listed(items: readonly string[]): string {
  return items.length > 1 ? `${items.slice(0, -1).join(', ')} and ${items.at(-1)}` : (items[0] ?? '');
}

const plural = (n: number, word: string) => `${numberWord(n)} ${word}${n === 1 ? '' : 's'}`;

/** The consent text, its description of the study and its length computed from the settings. */
export function studyConsent(config: StudySettings): string {
  const minutes = studyMinutes(config);
  const takes = `It takes about ${minutes} minute${minutes === 1 ? '' : 's'}.`;
  const what =
    config.kind === 'observe'
      ? `You will watch ${plural(config.observe.clips, 'short recording')} of a top-down team game and say, for each player, whether you think a person or a computer program played it. ${takes}`
      : `You will play short matches of a top-down team game against ${plural(config.teams.length, 'computer-controlled team')} and answer a few questions about each team. ${takes}`;
  const stored =
    config.kind === 'observe'
      ? 'We store your answers under a random participant number, with the name and version of your browser.'
      : 'We store your answers, your game inputs and the results of your matches under a random participant number, with the name and version of your browser.';
  return [
    'You are invited to take part in a study of computer-controlled players in games.',
    what,
    `${stored} We do not ask for your name. If you came from a recruitment platform, we store your platform id so that you can be paid.`,
    'Taking part is voluntary. You can stop at any time by closing this page.',
    'Press "I agree" if you are 18 or older and agree to take part.',
  ].join('\n\n');
}

/** The instructions: the rules of the study's game, its blocks and episodes, the teammate and the practice round, from the settings. */
export function studyInstructions(config: StudySettings): string {
  const game = studyGameConfig(config.episodeSeconds);
  const rules = rulesText(game, { yourTeam: config.kind === 'play', game: 'episode' });
  if (config.kind === 'observe') {
    const perTeam = game.agent.perTeam;
    const labels = [...Array.from({ length: perTeam }, (_, i) => `B${i + 1}`), ...Array.from({ length: perTeam }, (_, i) => `R${i + 1}`)];
    return [
      rules,
      `Some players in these recordings were people playing with a keyboard and mouse; others were bots. Watch each of the ${plural(config.observe.clips, 'recording')}, then say for each of the ${numberWord(labels.length)} players (${labels.join(', ')}) whether you think a person or a bot played it. Any mix is possible.`,
    ].join('\n\n');
  }
  const you =
    config.teammate === PERSON_TEAMMATE
      ? 'You play one agent (marked P1); a second person at this computer plays the other (marked P2).'
      : 'You play one agent (marked YOU); your teammate (ALLY) plays the other.';
  const blocks = config.teams.map((_, i) => teamLabel(i));
  const practice = config.practice.enabled ? ` First, a practice round of up to ${secondsText(config.practice.episodeSeconds)} lets you try the controls.` : '';
  return [
    rules,
    `${you} You will play ${plural(blocks.length, 'block')} of ${plural(config.episodesPerBlock, 'episode')}, each block against a different opposing team, called ${listed(blocks)}. After each block you rate the team you just played.`,
    `Controls: W A S D to move, the mouse to aim, click or Space to fire, Shift to dash.${config.teammate === PERSON_TEAMMATE ? ' The second person: I J K L to move, U O to turn, Enter to fire, right Shift to dash.' : ''}${practice}`,
  ].join('\n\n');
}

/** Validate a config object; throws an Error listing every problem with its path. */
export function parseStudyConfig(value: unknown, source = 'study config'): StudyConfig {
  const parsed = studyConfigSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new Error(`${source} is invalid:\n${problems.join('\n')}`);
  }
  const config = parsed.data;
  return { ...config, consent: config.consent ?? studyConsent(config), instructions: config.instructions ?? studyInstructions(config) };
}

/** Parse config JSON text. */
export function parseStudyConfigText(text: string, source = 'study config'): StudyConfig {
  return parseStudyConfig(parseJsonText(text, source), source);
}

/** Every AI team a study needs in play: the compared teams, the teammate and the practice opponent. */
export function teamsInPlay(config: StudyConfig): AiTeamId[] {
  const ids = new Set<AiTeamId>(config.kind === 'observe' ? (config.observe.botMatches > 0 ? (config.observe.botTeams ?? config.teams) : []) : config.teams);
  if (config.kind === 'play') {
    if (config.teammate !== PERSON_TEAMMATE) ids.add(config.teammate);
    if (config.practice.enabled) ids.add(config.practice.opponent);
  }
  return [...ids];
}

/** Neutral labels and colours for the AI teams, by the position a participant meets them in. */
export const TEAM_COLOURS = ['#e0a526', '#9b6bdf', '#2bb3a3', '#d9679b', '#7f9c3a', '#5f86c9'] as const;

export function teamLabel(position: number): string {
  return `Team ${position + 1}`;
}

export function teamColour(position: number): string {
  return TEAM_COLOURS[position % TEAM_COLOURS.length]!;
}

/** What a participant's page may know of the config: no team types, no completion code. */
export interface PublicStudy {
  readonly id: string;
  readonly kind: 'play' | 'observe';
  readonly title: string;
  readonly consent: string;
  readonly contact: string;
  readonly ethics: string;
  readonly instructions: string;
  readonly blocks: number;
  readonly episodesPerBlock: number;
  readonly teammate: 'ai' | 'person';
  readonly practice: boolean;
  readonly likert: readonly LikertItem[];
  readonly open: readonly OpenQuestion[];
  readonly forcedChoice: StudyConfig['forcedChoice'];
  readonly background: readonly BackgroundQuestion[];
  readonly clips: number;
  /** Restarts allowed per episode after leaving it (see restartsPerEpisode). */
  readonly restartsPerEpisode: number;
  /** Where the llm team's model runs in the participant's page (see llmRuns). */
  readonly llmRuns: LlmRuns;
}

export function publicStudy(id: string, config: StudyConfig): PublicStudy {
  return {
    id,
    kind: config.kind,
    title: config.title,
    consent: config.consent,
    contact: config.contact,
    ethics: config.ethics,
    instructions: config.instructions,
    blocks: config.teams.length,
    episodesPerBlock: config.episodesPerBlock,
    teammate: config.teammate === PERSON_TEAMMATE ? 'person' : 'ai',
    practice: config.practice.enabled,
    likert: config.likert,
    open: config.open,
    forcedChoice: config.forcedChoice,
    background: config.background,
    clips: config.observe.clips,
    restartsPerEpisode: config.restartsPerEpisode,
    llmRuns: config.llmRuns ?? DEFAULT_LLM_RUNS,
  };
}
