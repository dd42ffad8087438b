/**
 * Platforms for tests: the shipped models and no language model (what most tests need), a
 * virtual clock, and a platform around a test chat client.
 */
import { type ChatClient, type Clock, type DecisionCache, type StrategistSettings, fixedLlmAccess, strategistSettingsOf } from '../../src/llm';
import { ModelLibrary } from '../../src/skills';
import { nodeModelSource } from '../../src/skills/nodeModels';
import { type Platform, createPlatform } from '../../src/teams';
import { type NodePlatform, nodePlatform, readPlatformSpec } from '../../src/teams/nodePlatform';

/** The shipped models (models/), no language model, the system clock. */
export function testPlatform(parts: Partial<Platform> = {}): Platform {
  return createPlatform({ models: new ModelLibrary(nodeModelSource('models')), ...parts });
}

/** One platform shared by the tests of a file (models load once). */
export const TEST_PLATFORM = testPlatform();

/** A platform whose language model is `client`, with the strategist settings given (the rest at their defaults). */
export function llmPlatform(client: ChatClient, settings: Partial<StrategistSettings> = {}, cache: DecisionCache | null = null, parts: Partial<Platform> = {}): Platform {
  return testPlatform({ llm: fixedLlmAccess({ client, provider: 'test', settings: strategistSettingsOf(settings), cache }), ...parts });
}

/**
 * Virtual time: sleeps and timers fire in the order of their due times, each when
 * nothing else is left to run (checked with setImmediate, after every promise has
 * settled), and the clock jumps to its due time. What took 70 ms "takes" 70 ms, at once,
 * the same way on a busy machine as on a quiet one.
 */
export class VirtualClock implements Clock {
  private time = 0;
  private seq = 0;
  private timers: { due: number; seq: number; fire: () => void }[] = [];
  private scheduled = false;

  now(): number {
    return this.time;
  }

  /** Move time on by hand (a frame loop's display frames), firing nothing. */
  advance(ms: number): void {
    this.time += ms;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.timer(ms, resolve));
  }

  timer(ms: number, fire: () => void): () => void {
    const entry = { due: this.time + Math.max(0, ms), seq: this.seq++, fire };
    this.timers.push(entry);
    this.schedule();
    return () => {
      this.timers = this.timers.filter((t) => t !== entry);
    };
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.fireNext());
  }

  private fireNext(): void {
    this.scheduled = false;
    if (this.timers.length === 0) return;
    this.timers.sort((a, b) => a.due - b.due || a.seq - b.seq);
    const next = this.timers.shift()!;
    this.time = Math.max(this.time, next.due);
    next.fire();
    if (this.timers.length > 0) this.schedule();
  }
}

/** A Node platform read from `env` as a command reads its own (none set: the shipped models, no server). */
export function nodeTestPlatform(env: Readonly<Record<string, string>> = {}): NodePlatform {
  return nodePlatform(readPlatformSpec(env));
}
