/**
 * Plays a replay file tick by tick in the page, with the events each step reports (for
 * effects and the feed), and seeks anywhere by re-simulating from the start. Applies the
 * action rows exactly as src/match/replay.ts's replayTicks does, so the final state hash
 * equals Node's.
 */
import { type Action, type SimEvent, type World, createWorld, hashWorld, idleAction, step } from '../sim';
import type { ReplayFile } from '../match';
import type { Decision } from '../teams';
import type { SkillId } from '../skills';

export class ReplayPlayer {
  world: World;
  readonly events: SimEvent[] = [];
  private actions: Action[];
  private next = 0;

  constructor(readonly replay: ReplayFile) {
    this.world = createWorld(replay.seed, replay.config);
    this.actions = this.world.agents.map(() => idleAction());
  }

  get done(): boolean {
    return this.world.tick >= this.replay.ticks || this.world.outcome !== null;
  }

  /** Step one tick (nothing once the replay has ended). */
  advance(): void {
    this.events.length = 0;
    if (this.done) return;
    const world = this.world;
    const rows = this.replay.actions;
    while (this.next < rows.length && rows[this.next]![0] <= world.tick) {
      const [, agent, move, turn, strafe, dash, fire] = rows[this.next++]!;
      const a = this.actions[agent];
      if (!a) throw new Error(`replay action row ${this.next - 1} names agent ${agent}; the world has ${this.actions.length}`);
      a.move = move;
      a.turn = turn;
      a.strafe = strafe;
      a.dash = dash;
      a.fire = fire;
    }
    step(world, this.actions, this.events);
  }

  /** Back to tick 0. */
  reset(): void {
    this.world = createWorld(this.replay.seed, this.replay.config);
    this.actions = this.world.agents.map(() => idleAction());
    this.next = 0;
    this.events.length = 0;
  }

  /**
   * Jump to `tick` (clamped to the replay), re-simulating from the start when going back.
   * `onStep` sees each tick's events on the way (the page rebuilds its event feed from
   * them); it is told whether the walk started again from tick 0.
   */
  seek(tick: number, onStep?: (world: World, events: readonly SimEvent[]) => void): { restarted: boolean } {
    const target = Math.max(0, Math.min(this.replay.ticks, Math.round(tick)));
    const restarted = target < this.world.tick;
    if (restarted) this.reset();
    while (!this.done && this.world.tick < target) {
      this.advance();
      onStep?.(this.world, this.events);
    }
    return { restarted };
  }

  /** Decisions applied by now, per team, latest first. */
  decisionsSoFar(team: 0 | 1): Decision[] {
    const out: Decision[] = [];
    for (const d of this.replay.decisions) if (d.team === team && d.tick < this.world.tick) out.push(d);
    return out.reverse();
  }

  /** Each agent's skill by now (the latest decision of its team), or null before any. */
  skills(): (SkillId | null)[] {
    const latest: (Decision | undefined)[] = [this.decisionsSoFar(0)[0], this.decisionsSoFar(1)[0]];
    return this.world.agents.map((a) => latest[a.team]?.skills[a.slot] ?? null);
  }

  /** At the end: does the re-simulated world match the file's final hash? */
  check(): { ok: boolean; expected: string; actual: string } {
    const actual = hashWorld(this.world);
    return { ok: actual === this.replay.finalHash && this.world.tick === this.replay.ticks, expected: this.replay.finalHash, actual };
  }
}
