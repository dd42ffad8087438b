/**
 * Replay verification: re-simulate a replay and check everything it claims. Its bounds
 * are checked before the first tick (checkReplayBounds); then the re-simulation must reach
 * the file's final hash at its tick count with its outcome, its spec versions and teams
 * must be this build's, and its decisions must account for its actions: wherever a side's
 * skills are available here (the scripted ones always, the trained ones with a model
 * library), each agent's action is derived again from its decided skill (or its team's
 * policy) and its observation, as the match did.
 *
 * The re-simulation is the match loop itself (Match, as runMatch plays it): each side is a
 * RecordedTeam, a team controller that plays the file's actions and decisions, so the
 * replayed ticks, metrics and summary are the loop's own and cannot drift from it.
 *
 * Decisions are derived again too, wherever the team declares its strategist reproducible
 * from the match alone (TeamEntry.acts.decisions: the behavior trees, random, fixed); only
 * those that cannot be (a language model's) are taken from the file, and each side's check
 * says which.
 *
 * Which agents people played, and beside which AI teammate, the file records (`people`);
 * the caller may say it too (the study planned it), and then the two must agree. Those
 * agents' actions are taken as recorded; every other agent's are checked.
 */
import { z } from 'zod';
import {
  ACTION_SPEC_VERSION,
  type Action,
  OBS_SPEC_VERSION,
  TEAM_NAMES,
  type Team,
  copyAction,
  type TeamName,
  type World,
  hashWorld,
  idleAction,
  outcomeSide,
  sanitizeAction,
  teamAgents,
} from '../sim';
import { type ModelLibrary, type Policy, SCRIPTED_SKILLS, type SkillId, type SkillSet, checkPolicyFits } from '../skills';
import {
  type Decision,
  INITIAL_SKILL,
  type PeopleOnSide,
  type SkillSetKind,
  type Strategist,
  type StrategistAnswer,
  type TeamActs,
  type TeamController,
  type TeamEntry,
  andThen,
  resolveTeam,
  strategistDue,
} from '../teams';
import { HUMAN_TEAM_ID } from '../teams/human';
import { PolicyRunner } from '../teams/policyRunner';
import { Match, sideSeed } from './match';
import type { MatchSummary } from './metrics';
import { type PeopleInReplay, type ReplayFile, checkReplayBounds } from './replay';

export interface VerifyOptions {
  /** Who played each side where people did, as the caller knows it (the study's plan): the file's `people` must agree. */
  readonly people?: PeopleInReplay;
}

export interface VerifyWithModelsOptions extends VerifyOptions {
  /** Trained models (the platform's library): the sides that play them are checked too. */
  readonly models: ModelLibrary;
}

/** How a side's actions were checked against its decisions, and where its decisions came from. */
export interface SideCheck {
  /** Every action of its AI agents was derived again and matched. */
  readonly checked: boolean;
  /** How, or why not: 'scripted skills', 'not checked: a person played', ... */
  readonly how: string;
  /**
   * Where its decisions come from: 'derived again' (its strategist was built again and
   * decided as the file says), 'taken from the file (<why>)' (a strategist that cannot be
   * built again, or people), 'none (it has no strategist)', or why they were not derived.
   */
  readonly decisions: string;
}

export interface VerifyResult {
  /** Every claim of the file holds (sides that could not be checked aside: see `sides`). */
  readonly ok: boolean;
  /** The re-simulation reached the file's final hash at its tick count. */
  readonly resimulates: boolean;
  /**
   * Where the re-simulation first left the recorded match: the first checkpoint whose hash
   * differs, and the checkpoint before it that still agreed (so the first diverging tick
   * lies in (agreedAt, differsBy]). null when every checkpoint agrees.
   */
  readonly divergence: Divergence | null;
  /** Each claim that does not hold, in words; empty when ok. */
  readonly problems: readonly string[];
  readonly expectedHash: string;
  readonly actualHash: string;
  /** Ticks the re-simulation ran. */
  readonly ticks: number;
  /** The re-simulation's outcome (never the file's word). */
  readonly outcome: ReplayFile['outcome'];
  /** Seconds of sole zone occupation per team at the end of the re-simulation. */
  readonly progress: { readonly blue: number; readonly red: number };
  /** The match summary of the re-simulation: per-agent counts, decisions, time per skill. */
  readonly summary: MatchSummary;
  readonly sides: { readonly blue: SideCheck; readonly red: SideCheck };
}

export interface Divergence {
  /** The last checkpoint tick whose hash still agreed (0: the start). */
  readonly agreedAt: number;
  /** The first checkpoint tick whose hash differs. */
  readonly differsBy: number;
  readonly expected: string;
  readonly actual: string;
}

/** One way a side may have acted: its agents' actions derived again, tick by tick. */
interface Derivation {
  readonly how: string;
  readonly policyOf: (skill: SkillId | null) => Policy;
  readonly runner: PolicyRunner;
  /** The first action that does not follow, in words; null while all do. */
  mismatch: string | null;
}

/** A team's skill set or policy of one kind: the value, or why it is not here. */
type Resolved<T> = { readonly value: T } | { readonly missing: string };

interface Resolver {
  skillSet(kind: SkillSetKind): Resolved<SkillSet>;
  model(name: string): Resolved<Policy>;
}

const SYNC_RESOLVER: Resolver = {
  skillSet: (kind) => (kind === 'scripted' ? { value: SCRIPTED_SKILLS } : { missing: 'the trained skills are not loaded here' }),
  model: (name) => ({ missing: `the trained model '${name}' is not loaded here` }),
};

/** Load what the replay's teams need through the library, up front. */
async function modelResolver(replay: ReplayFile, options: VerifyWithModelsOptions): Promise<Resolver> {
  const sets = new Map<SkillSetKind, Resolved<SkillSet>>([['scripted', { value: SCRIPTED_SKILLS }]]);
  const models = new Map<string, Resolved<Policy>>();
  const { people } = peopleOf(replay, options);
  for (const name of TEAM_NAMES) {
    const acts = actsOf(replay.teams[name], people[name]);
    if (acts?.by === 'skills' && acts.skillSets.includes('trained') && !sets.has('trained')) {
      sets.set('trained', await options.models.skillSet().then((value) => ({ value }), (err: Error) => ({ missing: err.message })));
    }
    if (acts?.by === 'policy' && 'model' in acts.policy && !models.has(acts.policy.model)) {
      models.set(acts.policy.model, await options.models.load(acts.policy.model).then((value) => ({ value }), (err: Error) => ({ missing: err.message })));
    }
  }
  return {
    skillSet: (kind) => sets.get(kind) ?? SYNC_RESOLVER.skillSet(kind),
    model: (name) => models.get(name) ?? SYNC_RESOLVER.model(name),
  };
}

/** The entry of a team id or variant (`bt:persona=cautious`), or why it is none. */
function knownTeam(text: string): { entry: TeamEntry } | { problem: string } {
  try {
    return { entry: resolveTeam(text).entry };
  } catch (err) {
    return { problem: (err as Error).message };
  }
}

/** A team's canonical name (settings in order), or the text as written when it is no team. */
function canonicalTeam(text: string): string {
  const known = knownTeam(text);
  return 'entry' in known ? resolveTeam(text).variant.name : text;
}

function samePeople(a: PeopleOnSide, b: PeopleOnSide): boolean {
  const teammate = (p: PeopleOnSide) => (p.teammate === undefined ? undefined : canonicalTeam(p.teammate));
  return a.agents.length === b.agents.length && a.agents.every((agent) => b.agents.includes(agent)) && teammate(a) === teammate(b);
}

function describePeople(p: PeopleOnSide): string {
  const agents = `agent${p.agents.length > 1 ? 's' : ''} ${p.agents.join(' and ')}`;
  return p.teammate === undefined ? `${agents} with no AI teammate` : `${agents} beside '${p.teammate}'`;
}

/**
 * Who played each side where people did: the caller's word where it gives one (the study
 * planned the episode), else the file's. Where both speak, they must agree; the file's word
 * counts only for a side whose team is 'human' (elsewhere it would exempt AI agents from
 * the check).
 */
function peopleOf(replay: ReplayFile, options: VerifyOptions): { people: PeopleInReplay; problems: string[] } {
  const people: PeopleInReplay = {};
  const problems: string[] = [];
  for (const name of TEAM_NAMES) {
    const told = options.people?.[name];
    let recorded = replay.people?.[name];
    if (recorded && replay.teams[name] !== HUMAN_TEAM_ID) {
      problems.push(`people.${name} says people played ${describePeople(recorded)}, but teams.${name} is '${replay.teams[name]}', not '${HUMAN_TEAM_ID}'`);
      recorded = undefined;
    }
    if (told && recorded && !samePeople(told, recorded)) problems.push(`people.${name}: the file says people played ${describePeople(recorded)}; the match was planned with ${describePeople(told)}`);
    const hint = told ?? recorded;
    if (hint) people[name] = hint;
  }
  return { people, problems };
}

/** How a side's AI agents act, from its team id (and the teammate beside people); null when unknown. */
function actsOf(id: string, people: PeopleOnSide | undefined): TeamActs | null {
  if (people && people.teammate === undefined) return { by: 'person' };
  const known = knownTeam(people ? people.teammate! : id);
  return 'entry' in known ? known.entry.acts : null;
}

/**
 * Re-simulate a replay and check every claim it makes, re-deriving the actions of sides
 * that play scripted skills or policies (trained ones need verifyReplayWithModels).
 * Throws, before any simulation, when the replay exceeds the game's limits.
 */
export function verifyReplay(replay: ReplayFile, options: VerifyOptions = {}): VerifyResult {
  const result = new Verification(replay, options, SYNC_RESOLVER).run();
  if (result instanceof Promise) throw new Error('verifyReplay: a policy answered asynchronously; use verifyReplayWithModels');
  return result;
}

/** verifyReplay, with the trained skills and models of the library, so sides that play them are checked too. */
export async function verifyReplayWithModels(replay: ReplayFile, options: VerifyWithModelsOptions): Promise<VerifyResult> {
  checkReplayBounds(replay);
  return new Verification(replay, options, await modelResolver(replay, options)).run();
}

/**
 * The replay's action rows and decisions, read in file order up to each tick (once per
 * tick, by whichever side acts first): the actions as recorded so far, per agent, and each
 * decision handed to its side with its place in the file.
 */
class RecordedLog {
  /** Each agent's recorded action as of the latest tick read. */
  readonly actions: Action[];
  /** Action rows read so far. */
  rowsRead = 0;
  private decisionsRead = 0;
  private readTick = -1;

  constructor(
    private readonly replay: ReplayFile,
    agents: number,
    private readonly onDecision: (decision: Decision, index: number) => void,
  ) {
    this.actions = Array.from({ length: agents }, () => idleAction());
  }

  readTo(tick: number): void {
    if (tick === this.readTick) return;
    this.readTick = tick;
    const rows = this.replay.actions;
    while (this.rowsRead < rows.length && rows[this.rowsRead]![0] <= tick) {
      const [, agent, move, turn, strafe, dash, fire] = rows[this.rowsRead++]!;
      Object.assign(this.actions[agent]!, { move, turn, strafe, dash, fire });
    }
    const decisions = this.replay.decisions;
    while (this.decisionsRead < decisions.length && decisions[this.decisionsRead]!.tick <= tick) {
      const index = this.decisionsRead++;
      this.onDecision(decisions[index]!, index);
    }
  }
}

/**
 * A side as its replay records it: a team controller whose actions are the recorded ones
 * and whose skills are the recorded decisions. Wherever its skills or policy are here, it
 * derives its AI agents' actions again each tick and notes the first that does not follow.
 */
class RecordedTeam implements TeamController {
  readonly name: TeamName;
  /** How the side's AI agents act; null when that cannot be known. */
  readonly acts: TeamActs | null;
  readonly ids: readonly number[];
  readonly personAgents: ReadonlySet<number>;
  /** The strategist's skill for each slot (null for agents without skills). */
  readonly skills: (SkillId | null)[];
  /** What the side reports as each slot's skill: null for a person's agent. */
  readonly currentSkills: (SkillId | null)[];
  readonly derivations: Derivation[] = [];
  /** Why derivations this side may use are missing here. */
  readonly missing: string[] = [];
  /** Why the side cannot be checked at all, or null. */
  readonly unchecked: string | null = null;
  /** Decisions that changed no skill: how many, and the first (its place in the file and words). */
  readonly unchanged: { first: { index: number; text: string } | null; n: number } = { first: null, n: 0 };
  /** Where its decisions come from, in words (SideCheck.decisions). */
  private decisionsHow: string;
  /** Its strategist, built again, while its decisions still match the file's; null where they are taken from the file. */
  private strategist: { readonly team: string; readonly strategist: Strategist; readonly skills: SkillId[] } | null = null;
  /** The first place its strategist and the file part, in words. */
  private decisionMismatch: string | null = null;
  /** The file's decisions of this side read for the tick being played. */
  private readonly recordedNow: Decision[] = [];
  private readonly scratch = idleAction();

  constructor(
    readonly team: Team,
    readonly id: string,
    world: World,
    private readonly log: RecordedLog,
    private readonly onDecision: (decision: Decision) => void,
    private readonly verification: { readonly replay: ReplayFile; readonly problems: string[] },
    hint: PeopleOnSide | undefined,
    resolver: Resolver,
  ) {
    const { replay, problems } = verification;
    const name = (this.name = TEAM_NAMES[team]);
    const ids = (this.ids = teamAgents(world, team).map((a) => a.id));
    const people = (this.personAgents = new Set(hint?.agents ?? []));
    for (const agent of people) if (!ids.includes(agent)) problems.push(`agent ${agent}, said to be a person on ${name}, is not a ${name} agent`);
    const acts = (this.acts = actsOf(id, hint));
    const usesSkills = acts?.by === 'skills' || (acts?.by === 'person' && replay.decisions.some((d) => d.team === team));
    this.skills = ids.map(() => (usesSkills ? INITIAL_SKILL : null));
    this.currentSkills = ids.map((agent, slot) => (people.has(agent) ? null : this.skills[slot]!));
    if (!acts) this.decisionsHow = this.unchecked = `not checked: '${hint ? hint.teammate : id}' is not a team`;
    else if (acts.by === 'person') {
      this.unchecked = !hint
        ? `not checked: people played ${name} and the file does not say which agents (an older replay; newer ones record it)`
        : hint.teammate === undefined
          ? 'not checked: people played every agent'
          : `not checked: the teammate '${hint.teammate}' plays with people`;
      this.decisionsHow = !hint ? 'taken from the file (it does not name the AI teammate)' : hint.teammate === undefined ? 'taken from the file (people played every agent)' : this.unchecked;
    } else if (acts.by === 'policy') {
      this.decisionsHow = 'none (it has no strategist)';
      const policy = 'model' in acts.policy ? resolver.model(acts.policy.model) : { value: acts.policy };
      if ('value' in policy) this.derive(policy.value.kind === 'onnx' ? 'its trained policy' : 'its scripted policy', [policy.value], () => policy.value);
      else this.missing.push(policy.missing);
    } else {
      this.decisionsHow = this.rebuildStrategist(acts, hint?.teammate ?? id);
      for (const kind of acts.skillSets) {
        const set = resolver.skillSet(kind);
        if ('value' in set) this.derive(`${kind} skills`, Object.values(set.value), (skill) => set.value[skill ?? INITIAL_SKILL]);
        else this.missing.push(set.missing);
      }
    }
  }

  /**
   * Build the side's strategist again where its team declares it reproducible from the
   * match alone (on the seed the match gave the side), so its decisions are derived again;
   * returns where its decisions come from, in words.
   */
  private rebuildStrategist(acts: Extract<TeamActs, { by: 'skills' }>, decider: string): string {
    if ('recorded' in acts.decisions) return `taken from the file (${acts.decisions.recorded})`;
    const { replay, problems } = this.verification;
    try {
      const ctx = { team: this.team, seed: sideSeed(replay.seed, this.name, this.id), config: replay.config };
      this.strategist = { team: decider, strategist: acts.decisions.rederive(ctx, resolveTeam(decider).variant), skills: this.ids.map(() => INITIAL_SKILL) };
      return 'derived again';
    } catch (err) {
      problems.push(`${this.name} '${decider}' cannot have decided in this match: ${(err as Error).message}`);
      return 'not derived again (its strategist cannot play this match)';
    }
  }

  private derive(how: string, policies: readonly Policy[], policyOf: (skill: SkillId | null) => Policy): void {
    const { replay, problems } = this.verification;
    try {
      for (const policy of policies) checkPolicyFits(policy, replay.config);
    } catch (err) {
      problems.push(`${this.name} '${this.id}' cannot have played this match with ${how}: ${(err as Error).message}`);
      return;
    }
    this.derivations.push({ how, policyOf, runner: new PolicyRunner(replay.config, this.ids), mismatch: null });
  }

  /** A recorded decision of this side applies: its skills become the side's. */
  decide(d: Decision, index: number): void {
    let changed = false;
    this.ids.forEach((agent, slot) => {
      if (this.skills[slot] === null) return;
      changed ||= this.skills[slot] !== d.skills[slot];
      this.skills[slot] = d.skills[slot]!;
      this.currentSkills[slot] = this.personAgents.has(agent) ? null : d.skills[slot]!;
    });
    if (!changed && this.acts?.by === 'skills') {
      this.unchanged.n++;
      this.unchanged.first ??= { index, text: `decision ${index} (tick ${d.tick}, ${this.name}) changes no skill; strategists report only changes` };
    }
    this.recordedNow.push(d);
    this.onDecision(d);
  }

  /** The recorded decisions and actions of this side's agents, each compared with what its strategist and skills derive. */
  act(world: World, actions: Action[]): void | Promise<void> {
    this.log.readTo(world.tick);
    return andThen(this.deriveDecision(world), () => this.playActions(world, actions));
  }

  /** Ask the rebuilt strategist on the ticks the match asked it, and compare its decision with the file's for this tick. */
  private deriveDecision(world: World): void | Promise<void> {
    const recorded = this.recordedNow.splice(0);
    const rebuilt = this.strategist;
    if (!rebuilt || this.decisionMismatch) return;
    const tick = world.tick;
    const answer = strategistDue(rebuilt.strategist, tick) ? rebuilt.strategist.decide(world, this.team, rebuilt.skills) : null;
    return andThen(answer, (a) => this.compareDecision(tick, a, recorded));
  }

  private compareDecision(tick: number, answer: StrategistAnswer | null, recorded: readonly Decision[]): void {
    const before = this.strategist!.skills;
    const changes = answer !== null && answer.skills.some((skill, slot) => skill !== before[slot]);
    const derived = changes ? answer.skills : before;
    const file = recorded.at(-1)?.skills ?? before;
    const slot = this.ids.findIndex((_, i) => derived[i] !== file[i]);
    if (slot >= 0) {
      const agent = this.ids[slot];
      this.decisionMismatch = `at tick ${tick} the file ${recorded.length > 0 ? 'gives' : 'keeps'} agent ${agent} '${file[slot]}'; its strategist ${changes ? 'gives it' : 'keeps it on'} '${derived[slot]}'`;
    } else if (changes) derived.forEach((skill, i) => (before[i] = skill));
  }

  private playActions(world: World, actions: Action[]): void | Promise<void> {
    for (const agent of this.ids) copyAction(this.log.actions[agent]!, actions[agent]!);
    const pending: Promise<void>[] = [];
    for (const derivation of this.derivations) {
      if (derivation.mismatch || !derivation.runner.isSkillTick(world)) continue;
      const ran = derivation.runner.run(world, (slot) => derivation.policyOf(this.skills[slot] ?? null));
      if (ran) pending.push(ran);
    }
    if (pending.length > 0) return Promise.all(pending).then(() => this.compare(world));
    this.compare(world);
  }

  private compare(world: World): void {
    for (const derivation of this.derivations) {
      if (derivation.mismatch) continue;
      this.ids.forEach((agent, slot) => {
        if (derivation.mismatch || this.personAgents.has(agent)) return;
        const derived = sanitizeAction(derivation.runner.held[slot]!, this.scratch);
        const recorded = this.log.actions[agent]!;
        if (!sameAction(derived, recorded)) {
          const skill = this.skills[slot];
          derivation.mismatch = `agent ${agent}'s action at tick ${world.tick} is ${formatAction(recorded)}; ${skill ? `its skill '${skill}'` : 'its policy'} gives ${formatAction(derived)}`;
        }
      });
    }
  }

  /** How its actions were checked against its decisions, and its decisions against its strategist (each mismatch a problem of the file). */
  check(): SideCheck {
    const actions = this.checkActions();
    if (!this.decisionMismatch) return { ...actions, decisions: this.decisionsHow };
    this.verification.problems.push(`${this.name} '${this.strategist!.team}': its decisions are not its strategist's: ${this.decisionMismatch}`);
    return { ...actions, decisions: "derived again, and they differ from the file's" };
  }

  private checkActions(): { checked: boolean; how: string } {
    if (this.unchecked) return { checked: false, how: this.unchecked };
    const matched = this.derivations.find((d) => !d.mismatch);
    if (matched) return { checked: true, how: matched.how };
    if (this.missing.length > 0) {
      const tried = this.derivations.map((d) => `they do not follow its ${d.how}`);
      return { checked: false, how: `not checked: ${[...tried, ...this.missing].join('; ')}` };
    }
    for (const d of this.derivations) this.verification.problems.push(`${this.name} '${this.id}' with ${d.how}: ${d.mismatch}`);
    return { checked: false, how: `its actions do not follow its decisions` };
  }
}

/** The replay played again through the match loop, with its recorded sides as the controllers. */
class Verification {
  readonly problems: string[] = [];
  private readonly match: Match;
  private readonly log: RecordedLog;
  private readonly sides: readonly [RecordedTeam, RecordedTeam];
  private divergence: Divergence | null = null;

  constructor(
    readonly replay: ReplayFile,
    options: VerifyOptions,
    resolver: Resolver,
  ) {
    checkReplayBounds(replay);
    const { people, problems } = peopleOf(replay, options);
    this.problems.push(...problems);
    this.checkClaims(people);
    this.log = new RecordedLog(replay, replay.config.agent.perTeam * 2, (d, index) => this.sides[d.team].decide(d, index));
    const spec = { blue: replay.teams.blue, red: replay.teams.red, seed: replay.seed, config: replay.config };
    const built: { sides?: readonly [RecordedTeam, RecordedTeam] } = {};
    this.match = Match.withControllers(
      spec,
      (world, onDecision) => {
        const side = (team: Team) => new RecordedTeam(team, replay.teams[TEAM_NAMES[team]], world, this.log, onDecision, this, people[TEAM_NAMES[team]], resolver);
        built.sides = [side(0), side(1)];
        return built.sides;
      },
      { record: false },
    );
    this.sides = built.sides!;
    this.checkDecisions();
  }

  /** Spec versions and teams: what the file says it is. */
  private checkClaims(people: PeopleInReplay): void {
    const r = this.replay;
    if (r.obsSpecVersion !== OBS_SPEC_VERSION) this.problems.push(`obsSpecVersion is ${r.obsSpecVersion}; this build observes with spec v${OBS_SPEC_VERSION}`);
    if (r.actionSpecVersion !== ACTION_SPEC_VERSION) this.problems.push(`actionSpecVersion is ${r.actionSpecVersion}; this build acts with spec v${ACTION_SPEC_VERSION}`);
    for (const name of TEAM_NAMES) {
      const id = r.teams[name];
      const known = knownTeam(id);
      if ('problem' in known) this.problems.push(`teams.${name} '${id}' is not a team: ${known.problem}`);
      const side = people[name];
      const teammate = side?.teammate === undefined ? null : knownTeam(side.teammate);
      if (teammate && 'problem' in teammate) this.problems.push(`the ${name} people's teammate '${side!.teammate}' is not a team: ${teammate.problem}`);
    }
  }

  /** Decisions in order, within the match, from the side's strategist: each kind of fault once, with its count and first case. */
  private checkDecisions(): void {
    const faults = new Map<string, { first: string; n: number }>();
    const fault = (kind: string, first: string) => {
      const f = faults.get(kind);
      if (f) f.n++;
      else faults.set(kind, { first, n: 1 });
    };
    const last: [number, number] = [-1, -1];
    this.replay.decisions.forEach((d, i) => {
      const side = this.sides[d.team];
      const where = `decision ${i} (tick ${d.tick}, ${side.name})`;
      if (d.tick <= last[d.team]) fault(`${side.name} order`, `${where} is not after ${side.name}'s previous decision (tick ${last[d.team]})`);
      last[d.team] = Math.max(last[d.team], d.tick);
      if (d.tick >= this.replay.ticks) fault('late', `${where} comes after the match's last tick (${this.replay.ticks - 1})`);
      const acts = side.acts;
      if (acts?.by === 'policy') fault(`${side.name} none`, `${where}: '${side.id}' has no strategist, so it makes no decisions`);
      if (acts?.by === 'skills' && d.source !== acts.source) fault(`${side.name} source`, `${where} says it came from '${d.source}'; '${side.id}' decides by '${acts.source}'`);
    });
    for (const { first, n } of faults.values()) this.problems.push(n > 1 ? `${first} (and ${n - 1} more like it)` : first);
  }

  /** Play the match loop to the file's tick count (or the match's end), checking each checkpoint on the way. */
  run(): VerifyResult | Promise<VerifyResult> {
    const match = this.match;
    while (match.world.tick < this.replay.ticks && !match.done) {
      const pending = match.advance();
      if (pending) return pending.then(() => (this.checkpoint(), this.run()));
      this.checkpoint();
    }
    return this.result();
  }

  /** Compare the state with the file's checkpoint, if this tick has one, until the first difference. */
  private checkpoint(): void {
    const { every, hashes } = this.replay.checkpoints;
    const world = this.match.world;
    const tick = world.tick;
    if (this.divergence || tick % every !== 0) return;
    const at = (tick / every - 1) * 16;
    const expected = hashes.slice(at, at + 16);
    const actual = hashWorld(world);
    if (expected !== actual) this.divergence = { agreedAt: tick - every, differsBy: tick, expected, actual };
  }

  private result(): VerifyResult {
    const r = this.replay;
    const world = this.match.world;
    const actualHash = hashWorld(world);
    const outcome = outcomeSide(world.outcome) ?? 'unfinished';
    const problems = this.problems;
    const ended = world.outcome ? ` (${outcome === 'draw' ? 'a draw' : `${outcome} won`})` : '';
    const d = this.divergence;
    if (d) problems.push(`the re-simulation leaves the recorded match between tick ${d.agreedAt} and tick ${d.differsBy} (checkpoint hash ${d.expected}; the re-simulation gives ${d.actual})`);
    if (world.tick !== r.ticks) problems.push(`ticks: the file says ${r.ticks}; the re-simulation ended at tick ${world.tick}${ended}`);
    else if (actualHash !== r.finalHash) problems.push(`finalHash: the file says ${r.finalHash}; the re-simulation gives ${actualHash}`);
    if (outcome !== r.outcome) problems.push(`outcome: the file says ${r.outcome}; the re-simulation gives ${outcome}`);
    const unchanged = this.unchangedDecisions();
    if (unchanged) problems.push(unchanged);
    const unplayed = r.actions.length - this.log.rowsRead;
    if (unplayed > 0) problems.push(`${unplayed} action row${unplayed > 1 ? 's' : ''} lie after the last tick played (${world.tick - 1})`);
    const [blue, red] = this.sides.map((side) => side.check());
    const hz = world.config.tickHz;
    return {
      ok: problems.length === 0,
      resimulates: actualHash === r.finalHash && world.tick === r.ticks && !d,
      divergence: d,
      problems: [...problems],
      expectedHash: r.finalHash,
      actualHash,
      ticks: world.tick,
      outcome,
      progress: { blue: world.progress[0] / hz, red: world.progress[1] / hz },
      summary: this.match.summary(),
      sides: { blue: blue!, red: red! },
    };
  }

  /** Decisions that changed no skill, both sides together: the first in the file, and how many more. */
  private unchangedDecisions(): string | null {
    const n = this.sides[0].unchanged.n + this.sides[1].unchanged.n;
    const firsts = this.sides.map((side) => side.unchanged.first).filter((f) => f !== null);
    const first = firsts.sort((a, b) => a.index - b.index)[0];
    if (!first) return null;
    return n > 1 ? `${first.text} (and ${n - 1} more like it)` : first.text;
  }
}

/**
 * Derived and recorded actions compare exactly: skills and policies give the same bits in
 * every engine (sim/detMath.ts, skills/policyNetwork.ts), so any difference is a real one.
 */
function sameAction(a: Action, b: Action): boolean {
  return a.move === b.move && a.turn === b.turn && a.strafe === b.strafe && a.dash === b.dash && a.fire === b.fire;
}

function formatAction(a: Action): string {
  const n = (v: number) => String(Math.round(v * 1e6) / 1e6);
  return `[move ${n(a.move)}, turn ${n(a.turn)}, strafe ${n(a.strafe)}, dash ${a.dash}, fire ${a.fire}]`;
}

// --- summaries sent beside a replay ---------------------------------------------------

const count = z.number().int().min(0).max(1e9);
const seconds = z.number().min(0).max(1e6);

/**
 * A match summary as a page sends it beside its replay: MatchSummary's fields, each
 * bounded. Fields this build does not know are dropped unread (only the re-simulation's
 * summary is ever stored), so a newer page's summary still reads.
 */
export const claimedSummarySchema = z.object({
  seed: z.number().int().min(0).max(0xffffffff),
  blue: z.string().max(100),
  red: z.string().max(100),
  winner: z.enum(['blue', 'red', 'draw']),
  ticks: count,
  durationSeconds: seconds,
  progress: z.object({ blue: seconds, red: seconds }),
  decisions: z.object({ blue: count, red: count }),
  agents: z
    .array(
      z.object({
        agent: z.number().int().min(0).max(64),
        team: z.enum(['blue', 'red']),
        controller: z.string().max(100),
        kills: count,
        deaths: count,
        shots: count,
        hits: count,
        accuracy: z.number().min(0).max(1).nullable(),
        damageDealt: z.number().min(0).max(1e12),
        pickups: count,
        skillSeconds: z.record(z.string().max(32), seconds).refine((r) => Object.keys(r).length <= 16, 'at most 16 skills'),
        skillTransitions: z.record(z.string().max(80), count).refine((r) => Object.keys(r).length <= 64, 'at most 64 transitions'),
      }),
    )
    .max(64),
  hash: z.string().regex(/^[0-9a-f]{16}$/),
});
export type ClaimedSummary = z.infer<typeof claimedSummarySchema>;

/** Where a summary sent beside a replay disagrees with the re-simulation's, in words. */
export function summaryProblems(claimed: ClaimedSummary | MatchSummary, derived: MatchSummary): string[] {
  const problems: string[] = [];
  const check = (what: string, said: unknown, found: unknown) => {
    if (said !== found) problems.push(`summary ${what}: sent ${String(said)}; the re-simulation gives ${String(found)}`);
  };
  check('seed', claimed.seed, derived.seed);
  check('winner', claimed.winner, derived.winner);
  check('ticks', claimed.ticks, derived.ticks);
  check('hash', claimed.hash, derived.hash);
  check('progress.blue', claimed.progress.blue, derived.progress.blue);
  check('progress.red', claimed.progress.red, derived.progress.red);
  check('agents', claimed.agents.length, derived.agents.length);
  claimed.agents.forEach((a, i) => {
    const d = derived.agents[i];
    if (!d) return;
    for (const key of ['agent', 'kills', 'deaths', 'shots', 'hits', 'damageDealt', 'pickups'] as const) check(`agents.${i}.${key}`, a[key], d[key]);
  });
  return problems;
}

/** A verification as text for the terminal: what was checked, and every claim that fails. */
export function formatVerification(replay: ReplayFile, result: VerifyResult): string {
  const ended = result.outcome === 'unfinished' ? 'unfinished' : result.outcome === 'draw' ? 'a draw' : `${result.outcome} won`;
  const sides = TEAM_NAMES.map((name) => {
    const side = result.sides[name];
    return `  ${name} (${replay.teams[name]}): ${side.checked ? `actions follow its decisions (${side.how})` : side.how}; decisions: ${side.decisions}`;
  });
  if (result.ok) return [`replay verified: ${result.ticks} ticks, ${ended}, final hash ${result.actualHash}`, ...sides].join('\n');
  const n = result.problems.length;
  return [`replay MISMATCH: ${n} claim${n > 1 ? 's do' : ' does'} not hold`, ...result.problems.map((p) => `  - ${p}`), ...sides].join('\n');
}
