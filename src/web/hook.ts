/**
 * A small read-mostly handle on window.__hillmind for automated checks of the page (the
 * browser tests and `npm run bench`): state, hash, and per-frame timing.
 */
import type { FrameSummary } from './frameStats';
import type { GameSession, SessionSnapshot } from './session';

export interface HillmindHook {
  readonly ready: boolean;
  /** 'WebGL' or 'Canvas'. */
  readonly renderer: string;
  state(): SessionSnapshot;
  frameStats(): FrameSummary;
  resetFrameStats(): void;
  /** The live match's replay JSON, or null. */
  replayText(): string | null;
}

declare global {
  interface Window {
    __hillmind?: HillmindHook;
  }
}

export function installHook(session: GameSession, renderer: () => string): HillmindHook {
  const hook: HillmindHook = {
    ready: true,
    get renderer() {
      return renderer();
    },
    state: () => session.snapshotState(),
    frameStats: () => session.stats.summary(),
    resetFrameStats: () => session.stats.reset(),
    replayText: () => session.replayText(),
  };
  window.__hillmind = hook;
  return hook;
}
