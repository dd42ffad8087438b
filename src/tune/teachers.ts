/**
 * Teachers: where the examples that tune the local model come from (npm run llm:tune). Each
 * gives lessons, a state as the strategist's prompt says it and the skill per agent the
 * teacher chose there; dataset.ts turns them into the model's tokens. Pluggable: a teacher
 * is a name and a function that yields lessons.
 *
 *   rules             situations from real matches (seeds apart from the exam's), labelled by
 *                     the behaviour tree's rules (teams/behaviorTree.ts rulesChoice)
 *   personas          the same, each situation under one persona's play style (in the system
 *                     prompt) with the rules of that persona's tree, so a style moves choices
 *   planner           situations of real play labelled by the planner's choice at the world
 *                     they were taken from (teams/planner.ts plannerChoice: it looks ahead);
 *                     planner:rollouts=8 and the like with the planner team's settings
 *   cache:<model>     the decisions a model made, read from the decision cache (a server's
 *                     27B model distilled into the 270M the product ships)
 *   replays:<dir>     the decisions of a strategist in replay files (the round of learning
 *                     from play keeps those of games won), or the rules' or the planner's
 *                     choice on the situations it asked about
 *   study:<db>        people's play in a study's verified episodes: the skill whose actions
 *                     best match what the person did (people steer agents, not skills)
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { type ExamItem, type ExamSet, parseAnswer, promptDigest, systemPrompt, userPrompt } from '../llm';
import { readCachedPrompts } from '../llm/node/fileCache';
import { type PlayedMoment, type ReplayFile, type WorldLabeller, buildExamSet, parseReplay, plannerLabeller, replayTicks } from '../match';
import { type Action, OBS_SIZE, type Team, type TeamSituation, TEAM_NAMES, type World, createWorld, idleAction, observe, teamAgents, teamSituation } from '../sim';
import { SCRIPTED_SKILLS, SKILL_IDS, type SkillContext, type SkillId, skillContext } from '../skills';
import { StudyStore } from '../survey/store';
import { INITIAL_SKILL, PERSONAS, PLANNER_DEFAULTS, type Platform, type PlannerSettings, type TeamVariant, plannerDefaultsText, plannerSettings, resolveTeam, rulesChoice } from '../teams';

/** One example: the state words, the teacher's skill per agent, and how much it counts. */
export interface Lesson {
  /** The user message of the strategist's prompt (prompt.ts userPrompt). */
  readonly prompt: string;
  /** A persona's play style, carried by the system prompt (prompt.ts systemPrompt); none for the study's. */
  readonly style?: string;
  /** The teacher's skill per agent, in slot order. */
  readonly choice: readonly SkillId[];
  /** Per agent, whether the teacher chose it (false: an AI teammate beside a person; fed, not taught). */
  readonly taught: readonly boolean[];
  readonly weight: number;
  /** Where it came from, for the card and for errors. */
  readonly from: string;
}

export interface TeacherContext {
  readonly platform: Platform;
  /** Called with a line of progress. */
  readonly progress?: (line: string) => void;
}

export interface Teacher {
  /** As the command line names it: rules, cache:<model>, replays:<dir>, study:<db>. */
  readonly name: string;
  /** One line for the card: what the teacher is and what it read. */
  readonly describe: string;
  lessons(ctx: TeacherContext): Promise<Lesson[]>;
}

export const TEACHER_HELP = 'rules, personas, planner[:<setting>=<value>...] (the planner team\'s settings, e.g. planner:rollouts=8), cache:<model>[@<cache dir>], replays:<dir of replay files>[:won][:rules|:planner] or study:<study database>';

const allTaught = (n: number) => Array.from({ length: n }, () => true);

/** A lesson from a situation and the skills chosen there. */
export function lessonOf(situation: TeamSituation, current: readonly SkillId[], choice: readonly SkillId[], from: string, weight = 1): Lesson {
  return { prompt: userPrompt(situation, current), choice: [...choice], taught: allTaught(choice.length), weight, from };
}

// ---------------------------------------------------------------------------------------
// rules, personas, planner: situations of real play, sampled as the exam's are.
// ---------------------------------------------------------------------------------------

/** Situations of real play as the exam samples them (match/examSet.ts), from the teacher's own seeds; with the planner's labels when given. */
function playedSituations(ctx: TeacherContext, teacher: string, firstSeed: number, options: { readonly size: number; readonly seeds: number }, planner?: WorldLabeller): Promise<ExamSet> {
  return buildExamSet(ctx.platform, {
    size: options.size,
    seeds: options.seeds,
    firstSeed,
    every: 25,
    command: 'npm run llm:tune',
    ...(planner ? { planner } : {}),
    onMatch: (done, total) => ctx.progress?.(`${teacher}: ${done} of ${total} matches played`),
    onLabel: (done, total) => ctx.progress?.(`${teacher}: ${done} of ${total} situations planned`),
  });
}

/** The rules teacher's matches: seeds from 1001, far from the exam's (1-12), so the exam stays unseen. */
export const RULES_FIRST_SEED = 1001;

export function rulesTeacher(options: { readonly size: number; readonly seeds: number }): Teacher {
  return {
    name: 'rules',
    describe: `the behaviour tree's rules on ${options.size} situations of real play (${options.seeds} seeds per team pair from ${RULES_FIRST_SEED})`,
    async lessons(ctx) {
      const set = await playedSituations(ctx, 'rules', RULES_FIRST_SEED, options);
      return set.items.map((item: ExamItem) => lessonOf(item.situation, item.current, item.rules, `rules: ${item.from}`));
    },
  };
}

/** The personas teacher's matches: seeds from 2001, apart from the exam's and the rules teacher's. */
export const PERSONAS_FIRST_SEED = 2001;

/**
 * Each situation under one persona, in turn: its style in the system prompt, its tree's
 * choice (without the tree's noise and reaction time, which a prompt cannot carry) as the label.
 */
export function personasTeacher(options: { readonly size: number; readonly seeds: number }): Teacher {
  return {
    name: 'personas',
    describe: `each persona's tree on ${options.size} situations of real play (${options.seeds} seeds per team pair from ${PERSONAS_FIRST_SEED}), one persona a situation, its style in the prompt`,
    async lessons(ctx) {
      const set = await playedSituations(ctx, 'personas', PERSONAS_FIRST_SEED, options);
      return set.items.map((item, i) => {
        const persona = PERSONAS[i % PERSONAS.length]!;
        const choice = rulesChoice(item.situation, item.current, { ...persona.tree, noise: 0, reactionTicks: 0 });
        return { ...lessonOf(item.situation, item.current, choice, `personas: ${persona.name}, ${item.from}`), style: persona.prompt };
      });
    },
  };
}

/** The planner teacher's matches: seeds from 3001, apart from the exam's and the other teachers'. */
export const PLANNER_FIRST_SEED = 3001;

/**
 * The planner's choice at the world of each situation (a fresh planner, with its defaults or
 * the settings a variant gives, `planner:rollouts=8`; the opponent's actual skills known:
 * match/examSet.ts plannerLabeller). The situations are sampled as the rules teacher's are,
 * so the two teach on moments alike; the planner looks ahead where the rules read the words,
 * and beats the tree that follows them. More rollouts an option make a steadier teacher
 * (npm run llm:exam -- --planner-consistency measures how steady), at their cost.
 */
export function plannerTeacher(options: { readonly size: number; readonly seeds: number }, planner: { readonly name: string; readonly settings: PlannerSettings } = { name: 'planner', settings: PLANNER_DEFAULTS }): Teacher {
  const shown = planner.name === 'planner' ? plannerDefaultsText() : planner.name;
  return {
    name: planner.name,
    describe: `the planner's choice (${shown}) at the worlds of ${options.size} situations of real play (${options.seeds} seeds per team pair from ${PLANNER_FIRST_SEED})`,
    async lessons(ctx) {
      const set = await playedSituations(ctx, planner.name, PLANNER_FIRST_SEED, options, plannerLabeller(ctx.platform, planner.settings));
      return set.items.map((item) => lessonOf(item.situation, item.current, item.planner!, `${planner.name}: ${item.from}`));
    },
  };
}

// ---------------------------------------------------------------------------------------
// cache:<model>: what a model answered, from the decision cache.
// ---------------------------------------------------------------------------------------

export function cacheTeacher(model: string, cacheDir: string): Teacher {
  return {
    name: `cache:${model}`,
    describe: `the decisions ${model} made, read from the decision cache in ${cacheDir}`,
    async lessons() {
      const lessons: Lesson[] = [];
      for (const cached of readCachedPrompts(cacheDir, model)) {
        const agents = (cached.user.match(/^Agent \d+:/gm) ?? []).length;
        if (agents < 1) continue;
        // Only the product's own system prompts (either format, no persona): their states read the same.
        const standard = [promptDigest(systemPrompt('compact', agents)), promptDigest(systemPrompt('json', agents))];
        if (!standard.includes(cached.system)) continue;
        const parsed = parseAnswer(cached.text, agents);
        if (!parsed.ok) continue;
        lessons.push({ prompt: cached.user, choice: parsed.skills, taught: allTaught(agents), weight: 1, from: `cache: ${model}` });
      }
      if (lessons.length === 0) {
        throw new Error(`the decision cache in ${cacheDir} holds no decisions of ${model} with their prompts (play matches with LLM_MODEL=${model} and LLM_CACHE=use first)`);
      }
      return lessons;
    },
  };
}

// ---------------------------------------------------------------------------------------
// replays:<dir>: a strategist's decisions in replay files.
// ---------------------------------------------------------------------------------------

/** The world before each tick of a replay: tick 0's, then after each step. */
function* worldsOf(replay: ReplayFile): Generator<World> {
  yield createWorld(replay.seed, replay.config);
  for (const world of replayTicks(replay)) yield world;
}

/** A strategist's answer as it was asked: the tick of the question, the team, the skills. */
export interface AskedDecision {
  readonly tick: number;
  readonly team: Team;
  readonly skills: readonly SkillId[];
}

/**
 * The decisions of `source` a replay records, as asked: a replay keeps only the answers
 * that changed a team's skills, so an answer that kept them is not there (asked.json
 * files, which the round of learning from play writes beside its replays, hold them all).
 */
export function recordedDecisions(replay: ReplayFile, source: string): AskedDecision[] {
  return replay.decisions.filter((d) => d.source === source).map((d) => ({ tick: d.timing?.requestTick ?? d.tick, team: d.team, skills: d.skills }));
}

/**
 * Whose choice a replay's lesson teaches: the strategist's own (`own`), or another teacher's
 * on the situation it asked about: the tree's rules (`rules`: DAgger, Ross et al. 2011; an
 * imitator's mistakes lead it to situations its teacher's games seldom reach, and there it
 * is taught again), or the planner's at the world of that moment (`planner`: expert
 * iteration, the stronger player labelling what the model's own play reached).
 */
export type ReplayLabels = 'own' | 'rules' | 'planner';

/** The rules as a labeller: the tree's choice on the moment's situation in words. */
const rulesLabeller: WorldLabeller = async (m) => rulesChoice(teamSituation(m.world, m.team), m.current);

/** The labeller for a replay's labels; null: the strategist's own choice. */
export function replayLabeller(labels: ReplayLabels, platform: Platform): WorldLabeller | null {
  if (labels === 'rules') return rulesLabeller;
  if (labels === 'planner') return plannerLabeller(platform);
  return null;
}

/**
 * Whether a team spec's agents run skills (its skills start as INITIAL_SKILL before its first
 * decision); a name the registry does not know (a side a factory built) is taken as running none.
 */
function runsSkills(spec: string): boolean {
  try {
    return resolveTeam(spec).entry.acts.by === 'skills';
  } catch {
    return false;
  }
}

/**
 * Decisions as lessons: the situation the strategist saw (at the tick it asked), the skills
 * its team ran then, and what it chose (or, with a labeller, what the rules or the planner
 * choose at the world of that tick, rebuilt from the replay). With `wonOnly`, only the
 * decisions of a team that won. The opponent's skills a label may use are those it ran by
 * the replay's decisions (null for a team that runs none).
 */
export async function replayLessons(
  replay: ReplayFile,
  asked: readonly AskedDecision[],
  options: { readonly wonOnly: boolean; readonly from: string; readonly weight?: number; readonly label?: WorldLabeller | null },
): Promise<Lesson[]> {
  const wanted = asked.filter((d) => !options.wonOnly || replay.outcome === TEAM_NAMES[d.team]);
  if (wanted.length === 0) return [];
  const byTick = new Map<number, AskedDecision[]>();
  for (const d of wanted) byTick.set(d.tick, [...(byTick.get(d.tick) ?? []), d]);
  const running: Record<Team, SkillId[] | null> = { 0: null, 1: null };
  const skilled: Record<Team, boolean> = { 0: runsSkills(replay.teams.blue), 1: runsSkills(replay.teams.red) };
  const perTeam = replay.config.agent.perTeam;
  const skillsOf = (team: Team) => running[team] ?? (skilled[team] ? Array.from({ length: perTeam }, () => INITIAL_SKILL) : null);
  const applied = [...replay.decisions].sort((a, b) => a.tick - b.tick);
  let next = 0;
  const lessons: Lesson[] = [];
  for (const world of worldsOf(replay)) {
    // The skills each team ran when this tick began: the changes applied before it.
    while (next < applied.length && applied[next]!.tick < world.tick) {
      const d = applied[next++]!;
      running[d.team] = [...d.skills];
    }
    for (const d of byTick.get(world.tick) ?? []) {
      const situation = teamSituation(world, d.team);
      const current = running[d.team] ?? situation.agents.map(() => INITIAL_SKILL);
      const moment: PlayedMoment = { world, team: d.team, current, opponentSkills: skillsOf(d.team === 0 ? 1 : 0), seed: replay.seed };
      const choice = options.label ? await options.label(moment) : d.skills;
      lessons.push(lessonOf(situation, current, choice, `${options.from}, tick ${world.tick}`, options.weight));
    }
  }
  return lessons;
}

/** The asked-decisions file beside a replay (game-x.json: game-x.asked.json). */
export const askedPathOf = (replayPath: string) => replayPath.replace(/\.json$/, '.asked.json');

/** What a replays teacher's labels say of themselves, on the card. */
const LABELLED_BY: Readonly<Record<Exclude<ReplayLabels, 'own'>, string>> = {
  rules: "the rules' choices on the situations",
  planner: "the planner's choices at the worlds of the situations",
};

export function replaysTeacher(dir: string, options: { readonly source: string; readonly wonOnly: boolean; readonly weight?: number; readonly labels?: ReplayLabels }): Teacher {
  const labels = options.labels ?? 'own';
  const won = options.wonOnly ? ', games won only' : '';
  return {
    name: `replays:${dir}${options.wonOnly ? ':won' : ''}${labels === 'own' ? '' : `:${labels}`}`,
    describe: labels === 'own' ? `the ${options.source} decisions in the replays of ${dir}${won}` : `${LABELLED_BY[labels]} the ${options.source} strategist asked about in the replays of ${dir}${won}`,
    async lessons(ctx) {
      const label = replayLabeller(labels, ctx.platform);
      if (!existsSync(dir)) throw new Error(`replays:${dir}: no such folder (expected a folder of .json replay files)`);
      const files = readdirSync(dir).filter((f) => f.endsWith('.json') && !f.endsWith('.asked.json')).sort();
      const lessons: Lesson[] = [];
      for (const [i, file] of files.entries()) {
        const path = join(dir, file);
        const replay = parseReplay(readFileSync(path, 'utf8'), path);
        const asked = existsSync(askedPathOf(path)) ? parseAsked(readFileSync(askedPathOf(path), 'utf8'), askedPathOf(path)) : recordedDecisions(replay, options.source);
        lessons.push(...(await replayLessons(replay, asked, { wonOnly: options.wonOnly, from: path, label, ...(options.weight !== undefined ? { weight: options.weight } : {}) })));
        ctx.progress?.(`replays: ${i + 1} of ${files.length} read`);
      }
      return lessons;
    },
  };
}

const askedSchema = z.array(z.object({ tick: z.number().int().min(0), team: z.union([z.literal(0), z.literal(1)]), skills: z.array(z.enum(SKILL_IDS)).min(1) }));

/** An asked-decisions file, checked whole. */
export function parseAsked(text: string, source: string): AskedDecision[] {
  const parsed = askedSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${source}: expected a list of {tick, team, skills}: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

// ---------------------------------------------------------------------------------------
// study:<db>: people's play, read as skills.
// ---------------------------------------------------------------------------------------

/** Ticks of a person's play read as one choice: the strategist's half second. */
const STUDY_WINDOW_TICKS = 25;

/** What an agent did at one of its skill ticks, beside what it observed. */
export interface ObservedAction {
  readonly obs: Float32Array;
  readonly did: Action;
}

/**
 * The skill whose actions come closest to what an agent did over a window: each scripted
 * skill acts on the agent's own observation at every tick, and the squared differences of
 * move, turn, strafe and fire add up. The smallest sum wins; ties go to the earlier skill.
 */
export function closestSkill(window: readonly ObservedAction[], context: SkillContext): SkillId {
  const out = [idleAction()];
  let best: SkillId = SKILL_IDS[0];
  let bestCost = Infinity;
  for (const id of SKILL_IDS) {
    let cost = 0;
    for (const { obs, did } of window) {
      void SCRIPTED_SKILLS[id].act(obs, 1, out, context);
      const a = out[0]!;
      cost += (a.move - did.move) ** 2 + (a.turn - did.turn) ** 2 + (a.strafe - did.strafe) ** 2 + (a.fire - did.fire) ** 2;
    }
    if (cost < bestCost) {
      bestCost = cost;
      best = id;
    }
  }
  return best;
}

/**
 * Lessons from one study episode: every half second, the people's agents are taught the
 * skill closest to what they did next; the side's other agents are fed as its AI ran them.
 */
export function studyLessons(replay: ReplayFile, humanAgents: readonly number[], from: string): Lesson[] {
  const context = skillContext(replay.config);
  const first = createWorld(replay.seed, replay.config);
  const team = first.agents[humanAgents[0]!]?.team;
  if (team === undefined) throw new Error(`${from}: people played agent ${humanAgents[0]}, which the world does not have`);
  const perTeam = replay.config.agent.perTeam;
  const decisions = replay.decisions.filter((d) => d.team === team).sort((a, b) => a.tick - b.tick);
  const lessons: Lesson[] = [];
  const last = new Map<number, Action>();
  let windows = new Map<number, ObservedAction[]>();
  let row = 0;
  let nextDecision = 0;
  let ai: SkillId[] = Array.from({ length: perTeam }, () => INITIAL_SKILL);
  let current = [...ai];
  let start: { situation: TeamSituation; ai: SkillId[]; tick: number } | null = null;
  const scratch = new Float32Array(OBS_SIZE);
  const close = (members: readonly { readonly id: number }[]) => {
    if (!start) return;
    const choice = members.map((a, slot) => (humanAgents.includes(a.id) ? closestSkill(windows.get(a.id) ?? [], context) : start!.ai[slot]!));
    const taught = members.map((a) => humanAgents.includes(a.id) && (windows.get(a.id)?.length ?? 0) > 0);
    if (taught.some(Boolean)) lessons.push({ prompt: userPrompt(start.situation, current), choice, taught, weight: 1, from: `${from}, tick ${start.tick}` });
    current = choice;
  };
  for (const world of worldsOf(replay)) {
    while (row < replay.actions.length && replay.actions[row]![0] <= world.tick) {
      const [, agent, move, turn, strafe, dash, fire] = replay.actions[row++]!;
      last.set(agent, { move, turn, strafe, dash, fire });
    }
    while (nextDecision < decisions.length && decisions[nextDecision]!.tick <= world.tick) ai = [...decisions[nextDecision++]!.skills];
    const members = teamAgents(world, team);
    if (world.tick % STUDY_WINDOW_TICKS === 0) {
      close(members);
      windows = new Map();
      start = { situation: teamSituation(world, team), ai: [...ai], tick: world.tick };
    }
    if (world.tick % replay.config.skillEveryTicks !== 0) continue;
    for (const a of members) {
      const did = last.get(a.id);
      if (!humanAgents.includes(a.id) || !a.alive || !did) continue;
      windows.set(a.id, [...(windows.get(a.id) ?? []), { obs: new Float32Array(observe(world, a.id, scratch)), did: { ...did } }]);
    }
  }
  return lessons;
}

export function studyTeacher(dbPath: string): Teacher {
  return {
    name: `study:${dbPath}`,
    describe: `people's play in the verified episodes of the studies in ${dbPath}, read as the closest skill per half second`,
    async lessons(ctx) {
      if (!existsSync(dbPath)) throw new Error(`study:${dbPath}: no such database (expected a study database, e.g. data/studies.sqlite)`);
      const store = StudyStore.open(dbPath, { readonly: true });
      try {
        const episodes = store.clipPool('', [], true).filter((e) => e.participantId !== null && e.humanAgents.length > 0);
        const lessons: Lesson[] = [];
        for (const [i, e] of episodes.entries()) {
          const text = store.replayText(e.id);
          if (!text) continue;
          lessons.push(...studyLessons(parseReplay(text, `episode ${e.id}`), e.humanAgents, `study ${e.studyId}, episode ${e.id}`));
          ctx.progress?.(`study: ${i + 1} of ${episodes.length} episodes read`);
        }
        if (lessons.length === 0) throw new Error(`study:${dbPath}: no verified episode where people played (run a play study first)`);
        return lessons;
      } finally {
        store.close();
      }
    },
  };
}

// ---------------------------------------------------------------------------------------

/** A teacher from its command-line name; says what is expected when the name is wrong. */
export function parseTeacher(text: string, defaults: { readonly rulesSize: number; readonly rulesSeeds: number; readonly cacheDir: string }): Teacher {
  const name = text.trim();
  if (name === 'rules') return rulesTeacher({ size: defaults.rulesSize, seeds: defaults.rulesSeeds });
  if (name === 'personas') return personasTeacher({ size: defaults.rulesSize, seeds: defaults.rulesSeeds });
  if (name === 'planner') return plannerTeacher({ size: defaults.rulesSize, seeds: defaults.rulesSeeds });
  if (name.startsWith('planner:')) {
    // planner:<setting>=<value>...: the planner team's own variant settings, checked as a team's are.
    let variant: TeamVariant;
    try {
      ({ variant } = resolveTeam(name));
    } catch (err) {
      throw new Error(`teacher '${text}': ${(err as Error).message} (expected planner:<setting>=<value>... with the planner team's settings)`);
    }
    return plannerTeacher({ size: defaults.rulesSize, seeds: defaults.rulesSeeds }, { name: variant.name, settings: plannerSettings(variant) });
  }
  const [kind, ...restParts] = name.split(':');
  const rest = restParts.join(':');
  if (kind === 'cache' && rest) {
    const at = rest.lastIndexOf('@');
    return at > 0 ? cacheTeacher(rest.slice(0, at), rest.slice(at + 1)) : cacheTeacher(rest, defaults.cacheDir);
  }
  if (kind === 'replays' && rest) {
    // replays:<dir>[:won][:rules|:planner]: games won only; the rules' or the planner's choices on the situations asked.
    let dir = rest;
    const labels = (['rules', 'planner'] as const).find((l) => dir.endsWith(`:${l}`)) ?? 'own';
    if (labels !== 'own') dir = dir.slice(0, -`:${labels}`.length);
    const won = dir.endsWith(':won');
    if (won) dir = dir.slice(0, -':won'.length);
    if (!dir) throw new Error(`teacher '${text}' names no folder: expected replays:<dir of replay files>[:won][:rules|:planner]`);
    return replaysTeacher(dir, { source: 'llm', wonOnly: won, labels });
  }
  if (kind === 'study' && rest) return studyTeacher(rest);
  throw new Error(`unknown teacher '${text}': expected ${TEACHER_HELP}`);
}
