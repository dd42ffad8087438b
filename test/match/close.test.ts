/**
 * Whoever plays a match closes its teams: a language model's request still out when the
 * match ends (or is abandoned) is aborted, not left to run until its timeout. Counted with
 * an injected model that never answers (each request stays open until aborted) and with
 * the process's own active timers, after 20 matches in one process.
 */
import { describe, expect, it } from 'vitest';
import { type ChatClient, ChatError, type ChatRequest, type ChatResponse, STRATEGIST_DEFAULTS, type StrategistSettings, lazyLlmAccess } from '../../src/llm';
import { Match, runMatch } from '../../src/match';
import { DEFAULT_CONFIG } from '../../src/sim';
import { createPlatform, llmStrategistOf } from '../../src/teams';

/** A model that never answers: each request is open until its caller aborts it. */
class HangingModel implements ChatClient {
  readonly model = 'hanging';
  asked = 0;
  open = 0;
  closed = false;

  complete(_request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    this.asked++;
    this.open++;
    return new Promise((_, reject) =>
      signal.addEventListener(
        'abort',
        () => {
          this.open--;
          reject(new ChatError('aborted', 'the call was aborted'));
        },
        { once: true },
      ),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** Live timing (the game never waits for the model), the system clock, the scripted skills: the page's way of asking. */
const SETTINGS: StrategistSettings = { ...STRATEGIST_DEFAULTS, timing: { kind: 'live' }, skills: 'scripted' };
const SHORT = { ...DEFAULT_CONFIG, episodeSeconds: 2 };

function hangingPlatform() {
  const model = new HangingModel();
  let connections = 0;
  const platform = createPlatform({
    llm: lazyLlmAccess(
      async () => ({ ok: true, model: model.model, provider: 'test', settings: SETTINGS }),
      async () => {
        connections++;
        return { client: model, provider: 'test', settings: SETTINGS, cache: null };
      },
    ),
  });
  return { model, platform, connections: () => connections };
}

/** Every promise callback already due has run (what an abort sets off settles within one turn). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
const activeTimers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describe('closing teams', () => {
  it('after 20 matches in one process no model request is open and no call timer is left; the platform frees the model', async () => {
    const { model, platform, connections } = hangingPlatform();
    const timersBefore = activeTimers();
    for (let seed = 0; seed < 20; seed++) {
      const match = await runMatch({ blue: 'llm', red: seed % 2 ? 'llm' : 'bt-scripted', seed, config: SHORT }, { platform, record: false });
      // Each llm side asked once, at its first tick, and was still waiting when the match ended.
      expect(llmStrategistOf(match.controllers[0])!.stats().calls).toBe(1);
    }
    await settle();
    expect(model.asked).toBe(30);
    expect(model.open).toBe(0);
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
    expect(connections()).toBe(1);
    await platform.close();
    expect(model.closed).toBe(true);
  });

  it('a match abandoned before its end aborts the request it has out, and asks nothing more', async () => {
    const { model, platform } = hangingPlatform();
    const match = await Match.create({ blue: 'llm', red: 'llm', seed: 3, config: SHORT }, { platform, record: false });
    for (let i = 0; i < 10; i++) match.advance();
    expect(model.open).toBe(2);
    match.close();
    await settle();
    expect(model.open).toBe(0);
    const strategist = llmStrategistOf(match.controllers[0])!;
    expect(strategist.stats()).toMatchObject({ calls: 1, abandoned: 1, failed: 0 });
    // A closed team plays on (the page may still show the match) without asking again.
    for (let i = 0; i < 50; i++) match.advance();
    expect(model.asked).toBe(2);
    await platform.close();
  });
});
