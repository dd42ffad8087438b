/**
 * The human team: one or two people each control an agent, beside an AI teammate of any
 * team type. The AI controller acts for the whole team as usual; the people's agents then
 * take their actions from an input source (keyboard, mouse, gamepad: read in src/web; no
 * DOM here). Their actions flow into step() and the replay like any controller's.
 */
import { type Action, type Team, type World, clampUnit, resetIdle, teamAgents } from '../sim';
import type { SkillId } from '../skills';
import { type PeopleOnSide, type TeamContext, type TeamController, andThen } from './controller';
import { createTeam } from './registry';

export const HUMAN_TEAM_ID = 'human';

/** Where a person's actions come from. Read once per tick for each living human agent. */
export interface HumanInputSource {
  /**
   * Write the action of the person playing `slot` (0 = first person's agent). The world is
   * for reading only (aiming at a pointer needs the agent's position and facing).
   */
  read(world: World, agentId: number, slot: number, out: Action): void;
}

export interface HumanTeamOptions {
  /** Team id of the AI that plays the agents no person controls, e.g. 'bt-scripted'. */
  readonly teammate: string;
  /** Team slots the people control (default [0]: one person). */
  readonly humanSlots?: readonly number[];
  readonly input: HumanInputSource;
}

export class HumanTeamController implements TeamController {
  readonly id = HUMAN_TEAM_ID;
  private readonly skills: (SkillId | null)[] = [];
  private humanAgentIds: number[] | null = null;

  constructor(
    readonly team: Team,
    /** The AI playing the rest of the team (its decisions still reach the match). */
    readonly teammate: TeamController,
    readonly humanSlots: readonly number[],
    private readonly input: HumanInputSource,
  ) {
    if (teammate.team !== team) throw new Error(`the AI teammate plays team ${teammate.team}, not ${team}`);
  }

  /** The teammate's skills, with null for every agent a person plays. */
  get currentSkills(): readonly (SkillId | null)[] {
    const ai = this.teammate.currentSkills;
    this.skills.length = ai.length;
    for (let slot = 0; slot < ai.length; slot++) this.skills[slot] = this.humanSlots.includes(slot) ? null : ai[slot]!;
    return this.skills;
  }

  /** Agent ids the people control, in the order of humanSlots (known after the first act). */
  get humanAgents(): readonly number[] {
    return this.humanAgentIds ?? [];
  }

  /** The people's agents and, when it plays any agent, the AI teammate (by its registry name): what the replay records. */
  people(world: World): PeopleOnSide {
    const agents = (this.humanAgentIds ??= this.resolve(world));
    const aiPlays = teamAgents(world, this.team).length > agents.length;
    return { agents: [...agents], ...(aiPlays ? { teammate: this.teammate.id } : {}) };
  }

  act(world: World, actions: Action[]): void | Promise<void> {
    const ids = (this.humanAgentIds ??= this.resolve(world));
    return andThen(this.teammate.act(world, actions), () => {
      ids.forEach((id, person) => {
        const out = actions[id]!;
        resetIdle(out);
        if (!world.agents[id]!.alive) return;
        this.input.read(world, id, person, out);
        out.move = clampUnit(out.move);
        out.turn = clampUnit(out.turn);
        out.strafe = clampUnit(out.strafe);
        out.dash = out.dash > 0.5 ? 1 : 0;
        out.fire = out.fire > 0.5 ? 1 : 0;
      });
    });
  }

  close(): void {
    this.teammate.close?.();
  }

  private resolve(world: World): number[] {
    const members = teamAgents(world, this.team);
    return this.humanSlots.map((slot) => {
      const agent = members[slot];
      if (!agent) throw new Error(`team ${this.team} has no agent in slot ${slot} for a person to play`);
      return agent.id;
    });
  }
}

/** Build a human team: the AI teammate from the registry, the people's agents from `input`. */
export async function createHumanTeam(ctx: TeamContext, options: HumanTeamOptions): Promise<HumanTeamController> {
  if (options.teammate === HUMAN_TEAM_ID) throw new Error("the AI teammate must be an AI team, not 'human'");
  const slots = options.humanSlots ?? [0];
  if (slots.length === 0) throw new Error('a human team needs at least one person');
  const teammate = await createTeam(options.teammate, ctx);
  return new HumanTeamController(ctx.team, teammate, slots, options.input);
}
