/**
 * The platform: what the world outside the game gives the teams of one process. Each entry
 * point (a command, the server, the page, a tournament worker, a test) builds one and
 * passes it down; teams find their trained models, their language model and the clock
 * here, never in module state.
 */
import { type Clock, type LlmAccess, SYSTEM_CLOCK, noLlmAccess } from '../llm';
import { ModelLibrary } from '../skills';

export interface Platform {
  /** Trained policies by name, loaded once and shared by every match. */
  readonly models: ModelLibrary;
  /** How the llm team reaches a language model, its settings and the decision cache. */
  readonly llm: LlmAccess;
  /** The wall clock, for what waits on the outside world. */
  readonly clock: Clock;
  /** True where a person can play (the page); the human team needs one. */
  readonly person: boolean;
  /**
   * The longest the planner computes before it pauses (ms), so a page draws frames while it
   * plans (planner.ts, PlanSlicing); absent: it plans in one go, as headless matches want.
   */
  readonly planningSliceMs?: number;
  /**
   * Free what the platform holds: the language model's connections (the local engine's
   * model and context, channels to another thread's). The entry point that built it closes
   * it once its matches are over.
   */
  close(): Promise<void>;
}

/** A platform from the parts given; the rest are absent (no models, no language model, no person) or the system clock. */
export function createPlatform(parts: Partial<Omit<Platform, 'close'>> = {}): Platform {
  const llm = parts.llm ?? noLlmAccess('no language model is set up here');
  return {
    models: parts.models ?? new ModelLibrary(null),
    llm,
    clock: parts.clock ?? SYSTEM_CLOCK,
    person: parts.person ?? false,
    ...(parts.planningSliceMs !== undefined ? { planningSliceMs: parts.planningSliceMs } : {}),
    // Trained policies hold no native resources (play runs the JS network): the language model is all there is to free.
    close: () => llm.close(),
  };
}

/** Hand `platform` to `use`, and close it whatever `use` does. */
export async function usingPlatform<P extends Platform, T>(platform: P, use: (platform: P) => Promise<T>): Promise<T> {
  try {
    return await use(platform);
  } finally {
    await platform.close();
  }
}
