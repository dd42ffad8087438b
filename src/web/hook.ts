/**
 * A small read-mostly handle on window.__hillmind for automated checks of the page (the
 * browser tests and `npm run bench`): state, hash, per-frame timing, and the cross-engine
 * check played on the page's own platform.
 */
import type { Platform } from '../teams';
import { type CrossEngineCase, type CrossEngineResult, playCrossEngineCase } from './crossEngine';
import type { FrameSummary } from './frameStats';
import type { MatchSession, MatchSnapshot } from './matchSession';

export interface HillmindHook {
  readonly ready: boolean;
  /** 'WebGL' or 'Canvas'. */
  readonly renderer: string;
  state(): MatchSnapshot;
  frameStats(): FrameSummary;
  resetFrameStats(): void;
  /** The live match's replay JSON, or null. */
  replayText(): string | null;
  /** Play seeded cases headless with the page's models (crossEngine.ts), every tick's hash kept. */
  crossEngine(cases: readonly CrossEngineCase[]): Promise<CrossEngineResult[]>;
}

declare global {
  interface Window {
    __hillmind?: HillmindHook;
  }
}

export function installHook(session: MatchSession, renderer: () => string, platform: Platform): HillmindHook {
  const hook: HillmindHook = {
    ready: true,
    get renderer() {
      return renderer();
    },
    state: () => session.snapshotState(),
    frameStats: () => session.stats.summary(),
    resetFrameStats: () => session.stats.reset(),
    replayText: () => session.replayText(),
    async crossEngine(cases) {
      const results: CrossEngineResult[] = [];
      for (const c of cases) results.push(await playCrossEngineCase(c, platform));
      return results;
    },
  };
  window.__hillmind = hook;
  return hook;
}
