/**
 * What the panels show of the match on screen: the cards, scoreboard and countdown (the
 * hud store, refreshed at most every HUD_EVERY_MS unless forced), the text over each agent,
 * the feed's event lines, and the strategist panel's decisions and model status.
 */
import type { Clock } from '../llm';
import type { Match } from '../match';
import { type SimEvent, type World, outcomeSide } from '../sim';
import { type Decision, type LlmStrategist, type TeamController, llmStrategistOf } from '../teams';
import { HumanTeamController } from '../teams/human';
import { agentName, describeEvent } from './describe';
import type { ReplayPlayer } from './replayPlayer';
import { modelPace } from './modelPace';
import { type AgentCard, FOLD_SECONDS, type FeedEntry, type HudState, type Stores, pushDecision, pushFeed, setModelPace, setModelStatus } from './stores';

/** The panels refresh at most this often while a match runs. */
const HUD_EVERY_MS = 100;

/** What is on screen: a live match, a replay, or (neither) the chosen seed's preview. */
export interface OnScreen {
  readonly world: World;
  readonly match: Match | null;
  readonly player: ReplayPlayer | null;
  /** Display-frame ms of countdown left. */
  readonly countdownMs: number;
}

/** Text over each agent instead of skills and names (a blinded study shows no skills). */
export type AgentLabels = (world: World, humanAgents: readonly number[]) => (string | null)[];

export class MatchPanels {
  /** The agents people play in the match on screen. */
  humanAgents: number[] = [];
  /** Who plays each agent, for the cards. */
  controllerNames: string[] = [];
  private lastHud = -Infinity;
  /** Decisions of the tick being played: they wait for its end, so panels never redraw inside the timed simulation. */
  private decisions: Decision[] = [];
  /** The tick the models' pace is measured from: the match's start, or the latest change of speed or of waiting. */
  private paceSince = 0;

  constructor(
    private readonly stores: Stores,
    private readonly clock: Clock,
    private readonly customLabels?: AgentLabels,
  ) {}

  /** A new world on screen: nothing queued, and the next refresh not throttled. */
  reset(): void {
    this.decisions = [];
    this.lastHud = -Infinity;
    this.paceSince = 0;
  }

  /** Measure the models' pace from `tick` on: what was played before was played at another speed, or waiting. */
  measurePaceFrom(tick: number): void {
    this.paceSince = tick;
  }

  queueDecision(decision: Decision): void {
    this.decisions.push(decision);
  }

  /** After a tick: the feed's lines for its events, and the decisions that applied in it (a replay's from its file). */
  afterTick(world: World, events: readonly SimEvent[], player: ReplayPlayer | null): void {
    const feed: Omit<FeedEntry, 'id'>[] = [];
    for (const e of events) {
      const line = describeEvent(world, e);
      if (line) feed.push(line);
    }
    pushFeed(this.stores.feed, feed);
    const foldTicks = foldTicksOf(world);
    for (const d of this.decisions) pushDecision(this.stores.strategist, d, foldTicks);
    this.decisions.length = 0;
    if (player) {
      for (const d of player.replay.decisions) if (d.tick === world.tick - 1) pushDecision(this.stores.strategist, d, foldTicks);
    }
  }

  /** The text over each agent: the page's own labels, a person's name, or the agent's current skill. */
  labels(screen: OnScreen): (string | null)[] {
    const { world, match, player } = screen;
    if (this.customLabels && (match || player)) return this.customLabels(world, this.humanAgents);
    if (match) {
      const slots = [0, 0];
      return world.agents.map((a) => {
        const slot = slots[a.team]!++;
        const person = this.humanAgents.indexOf(a.id);
        if (person >= 0) return this.humanAgents.length > 1 ? `P${person + 1}` : 'YOU';
        return match.controllers[a.team].currentSkills[slot] ?? null;
      });
    }
    if (player) return player.skills();
    return world.agents.map(() => null);
  }

  /** Refresh the panels' store (throttled unless forced). */
  publish(screen: OnScreen, force = false): void {
    const t = this.clock.now();
    if (!force && t - this.lastHud < HUD_EVERY_MS) return;
    this.lastHud = t;
    this.stores.hud.setState(this.hud(screen));
    this.publishModelStatus(screen.match, screen.world);
  }

  /**
   * The language models' calls, for the strategist panel: pending, the last one's time or
   * failure; and their pace against the game's, for the notice over the arena. Once the match
   * has ended a call still out is awaited by no one, so the panel stops saying it waits for
   * the model, and the pace no longer matters.
   */
  private publishModelStatus(match: Match | null, world: World): void {
    const ended = world.outcome !== null;
    for (const team of [0, 1] as const) {
      const strategist = match ? teamLlmStrategist(match.controllers[team]) : null;
      const status = strategist ? strategist.status() : null;
      setModelStatus(this.stores.strategist, team, status && ended && status.askedAtTick !== null ? { ...status, askedAtTick: null } : status);
      const pace =
        strategist && !ended
          ? modelPace({
              answerTicks: strategist.records.filter((r) => r.ok).map((r) => r.applyTick),
              tick: world.tick,
              sinceTick: this.paceSince,
              periodTicks: strategist.ratePeriodTicks,
              tickHz: world.config.tickHz,
            })
          : null;
      setModelPace(this.stores.strategist, team, pace);
    }
  }

  private hud(screen: OnScreen): HudState {
    const { world, match, player } = screen;
    const hz = world.config.tickHz;
    const labels = this.labels(screen);
    const playing = match !== null || player !== null;
    const agents: AgentCard[] = world.agents.map((a) => ({
      id: a.id,
      team: a.team,
      name: agentName(world, a.id),
      controller: playing ? (this.controllerNames[a.id] ?? '') : '',
      human: this.humanAgents.includes(a.id),
      skill: this.humanAgents.includes(a.id) ? null : (labels[a.id] ?? null),
      health: a.health,
      maxHealth: world.config.agent.maxHealth,
      alive: a.alive,
      respawnIn: a.alive ? 0 : a.respawnTimer / hz,
      kills: a.stats.kills,
      deaths: a.stats.deaths,
      shots: a.stats.shots,
      hits: a.stats.hits,
      inZone: a.inZone,
    }));
    const teams: [string, string] = match
      ? [match.controllers[0].id, match.controllers[1].id]
      : player
        ? [player.replay.teams.blue, player.replay.teams.red]
        : ['', ''];
    return {
      tick: world.tick,
      tickHz: hz,
      episodeTicks: world.timings.episode,
      progress: [world.progress[0] / hz, world.progress[1] / hz],
      winSeconds: world.config.winHoldSeconds,
      zoneStatus: world.zoneStatus,
      outcome: playing ? outcomeSide(world.outcome) : null,
      teams,
      agents,
      countdown: Math.ceil(screen.countdownMs / 1000),
    };
  }
}

/** The language-model strategist that decides for a side: its own, or a person's AI teammate's; null where none does. */
export function teamLlmStrategist(controller: TeamController): LlmStrategist | null {
  return llmStrategistOf(controller) ?? (controller instanceof HumanTeamController ? llmStrategistOf(controller.teammate) : null);
}

/** FOLD_SECONDS in the match's ticks (a team's decisions that close to the first of a run fold into it). */
export function foldTicksOf(world: World): number {
  return Math.round(FOLD_SECONDS * world.config.tickHz);
}
