/**
 * The local engine's turns (evaluationTurns.ts): a fake engine whose steps cost their tokens
 * on a counter, so fairness is counted, never timed. A decision beside long requests waits
 * for a bounded number of their steps; the page beside a flood (one client or thirty, through
 * the proxy's gate) keeps at least half the answers it gets alone, per token the engine
 * evaluates, and the flood still gets a quarter of the engine or more; where the flood's
 * callers give up after a while, the gate lets in only what it can answer in time.
 */
import { describe, expect, it } from 'vitest';
import { EvaluationTurns, SHORT_REQUEST_TOKENS } from '../../src/llm/evaluationTurns';
import { PROMPT_PIECE_TOKENS } from '../../src/llm/node/llamaClient';
import { AdmissionGate, DEFAULT_GATE_LIMITS } from '../../src/server/llmProxyGate';

/** A 700-token prompt in pieces, then its 64-token answer (the flood of npm run bench -- --only llm-proxy). */
const LONG = [128, 128, 128, 128, 128, 60, 64];
/** A decision: its situation, then the two agents' reads. */
const DECISION = [67, 1, 2];
const sum = (steps: readonly number[]) => steps.reduce((a, b) => a + b, 0);

/** A fake engine: each step adds its tokens to `clock`; the log names whose step ran. */
class CountingEngine {
  readonly turns = new EvaluationTurns();
  clock = 0;
  readonly log: string[] = [];
  private requests = 0;
  private readonly alarms: { at: number; ring: () => void }[] = [];

  /** A request of `steps` tokens, one step each, given up when `signal` aborts; the clock when it began and ended. */
  async request(name: string, steps: readonly number[], signal = new AbortController().signal): Promise<{ began: number; ended: number }> {
    const began = this.clock;
    const taker = { served: 0, begun: ++this.requests };
    for (const cost of steps) {
      await this.turns.take(taker, cost, async () => this.run(name, cost), signal);
    }
    return { began, ended: this.clock };
  }

  /** Resolves once the engine has evaluated `tokens` more tokens. */
  after(tokens: number): Promise<void> {
    return new Promise((ring) => this.alarms.push({ at: this.clock + tokens, ring }));
  }

  /** Ring every alarm (the flood stops). */
  wake(): void {
    for (const alarm of this.alarms.splice(0)) alarm.ring();
  }

  private run(name: string, cost: number): void {
    this.clock += cost;
    this.log.push(name);
    for (const alarm of this.alarms.filter((a) => a.at <= this.clock)) {
      this.alarms.splice(this.alarms.indexOf(alarm), 1);
      alarm.ring();
    }
  }
}

/** The page's two teams asking decisions back to back until `count` are answered; the engine's clock at the end. */
async function page(engine: CountingEngine, count: number, enter: (team: number) => Promise<() => void> = async () => () => {}): Promise<number> {
  let asked = 0;
  await Promise.all(
    [0, 1].map(async (team) => {
      while (asked < count) {
        asked++;
        const leave = await enter(team);
        await engine.request(`page${team}`, DECISION);
        leave();
      }
    }),
  );
  return engine.clock;
}

/** What a flood's requests came to: answered, refused at once, or given up by their callers after they were let in. */
interface FloodOutcomes {
  answered: number;
  refused: number;
  timedOut: number;
}

/**
 * Clients sending long requests until `stop`, each as many at once as `atOnce`, through
 * `enter` (the gate), retrying after a refusal; each caller gives up `timeoutTokens` of the
 * engine's work after it asked, as the proxy does at its timeout (never, by default).
 */
function flood(
  engine: CountingEngine,
  clients: number,
  atOnce: number,
  stop: { done: boolean },
  enter: (client: string, signal: AbortSignal) => Promise<(() => void) | null>,
  timeoutTokens = Number.POSITIVE_INFINITY,
): { readonly outcomes: FloodOutcomes; readonly finished: Promise<void> } {
  const outcomes: FloodOutcomes = { answered: 0, refused: 0, timedOut: 0 };
  const count = (outcome: keyof FloodOutcomes) => {
    if (!stop.done) outcomes[outcome]++;
  };
  const one = async (client: string) => {
    while (!stop.done) {
      const timeout = new AbortController();
      if (Number.isFinite(timeoutTokens)) void engine.after(timeoutTokens).then(() => timeout.abort());
      const leave = await enter(client, timeout.signal);
      if (!leave) {
        count(timeout.signal.aborted ? 'timedOut' : 'refused');
        if (stop.done) break;
        // Refused: come back after a decision's worth of the engine's work (Retry-After).
        await engine.after(sum(DECISION));
        continue;
      }
      try {
        await engine.request(client, LONG, timeout.signal);
        count('answered');
      } catch {
        count('timedOut');
      } finally {
        leave();
      }
    }
  };
  const all = Array.from({ length: clients }, (_, c) => Array.from({ length: atOnce }, () => one(`flood${c}`))).flat();
  return { outcomes, finished: Promise.all(all).then(() => undefined) };
}

describe('the local engine takes turns by steps', () => {
  it('a decision that comes while a long request runs waits for at most the long requests\' first pieces and the step in progress', async () => {
    const engine = new CountingEngine();
    const long = engine.request('long', LONG);
    await engine.after(PROMPT_PIECE_TOKENS);
    const decision = await engine.request('decision', DECISION);
    await long;
    // Between the decision's start and its end, at most one step of the long request ran (the one in progress).
    const steps = engine.log.slice(engine.log.indexOf('decision') - 1, engine.log.lastIndexOf('decision') + 1);
    expect(steps.filter((s) => s === 'long').length).toBeLessThanOrEqual(Math.ceil(SHORT_REQUEST_TOKENS / PROMPT_PIECE_TOKENS));
    expect(decision.ended - decision.began).toBeLessThanOrEqual(sum(DECISION) + SHORT_REQUEST_TOKENS);
    // The long request finished, after the decision.
    expect(engine.log.filter((s) => s === 'long')).toHaveLength(LONG.length);
    expect(engine.log.at(-1)).toBe('long');
  });

  it('decisions among themselves go first come first served, not in turns that delay them all', async () => {
    const engine = new CountingEngine();
    await Promise.all([engine.request('a', DECISION), engine.request('b', DECISION), engine.request('c', DECISION)]);
    expect(engine.log).toEqual(['a', 'a', 'a', 'b', 'b', 'b', 'c', 'c', 'c']);
  });

  it('a step whose caller gives up while it waits never runs', async () => {
    const turns = new EvaluationTurns();
    const ran: string[] = [];
    const leave = new AbortController();
    const first = turns.take({ served: 0, begun: 1 }, 1, async () => void ran.push('first'), new AbortController().signal);
    const second = turns.take({ served: 0, begun: 2 }, 1, async () => void ran.push('second'), leave.signal);
    leave.abort();
    const refused = expect(second).rejects.toThrow('the call was aborted');
    await first;
    await refused;
    expect(ran).toEqual(['first']);
    expect(turns.queued).toBe(0);
  });
});

describe('the page beside a flood, counted in the engine\'s tokens', () => {
  const DECISIONS = 40;

  /** The proxy's gate on the engine's clock: a place at the model, or null when refused (or given up while waiting). */
  function gated(engine: CountingEngine) {
    const gate = new AdmissionGate(DEFAULT_GATE_LIMITS, () => engine.clock);
    return async (client: string, tokens: number, signal = new AbortController().signal, timeoutTokens?: number) => {
      const admission = await gate.enter(client, tokens, signal, timeoutTokens);
      return admission.ok ? () => admission.release() : null;
    };
  }

  /** The page's decisions through `enter`, each asked again after a decision's worth of work where refused; the engine's clock when `count` were answered. */
  function gatedPage(engine: CountingEngine, enter: (client: string, tokens: number) => Promise<(() => void) | null>): Promise<number> {
    return page(engine, DECISIONS, async () => {
      for (;;) {
        const leave = await enter('page', 16);
        if (leave) return leave;
        await engine.after(sum(DECISION));
      }
    });
  }

  it.each([
    ['one client with all its share', 1, DEFAULT_GATE_LIMITS.perClient],
    ['thirty clients', 30, 1],
  ])('flood of %s: the page gets at least half its answers per token, and the flood is answered too', async (_what, clients, atOnce) => {
    const alone = await page(new CountingEngine(), DECISIONS);
    expect(alone).toBe(DECISIONS * sum(DECISION));

    const engine = new CountingEngine();
    const enter = gated(engine);
    const stop = { done: false };
    const flooded = flood(engine, clients, atOnce, stop, (client) => enter(client, 64));
    // The flood fills the engine first.
    await engine.after(2 * PROMPT_PIECE_TOKENS);
    const began = engine.clock;
    const ended = await gatedPage(engine, enter);
    stop.done = true;
    engine.wake();
    await flooded.finished;
    const floodAnswered = flooded.outcomes.answered;
    // The bar: no more than twice the engine's tokens the page needs alone for as many decisions.
    expect(ended - began).toBeLessThanOrEqual(2 * alone);
    // And the flood is not starved: at least a quarter of the engine's tokens meanwhile were its.
    expect(ended - began - alone).toBeGreaterThanOrEqual((ended - began) / 4);
    expect(floodAnswered).toBeGreaterThan(0);
  });
  it('flood of thirty clients whose callers wait a bounded time: what is let in is answered in time, the rest is refused at once, and the page keeps its share', async () => {
    const alone = await page(new CountingEngine(), DECISIONS);
    // A long request (764 tokens) beside the page's decisions takes about 2,000 of the engine's
    // tokens: one fits in its caller's timeout, two one after the other do not.
    const timeout = 4 * sum(LONG);
    const engine = new CountingEngine();
    const enter = gated(engine);
    const stop = { done: false };
    const flooded = flood(engine, 30, 1, stop, (client, signal) => enter(client, 64, signal, timeout), timeout);
    // The gate measures what a long request takes beside the page, then the page is measured.
    await gatedPage(engine, enter);
    const before = { ...flooded.outcomes };
    const began = engine.clock;
    const ended = await gatedPage(engine, enter);
    const { answered, refused, timedOut } = flooded.outcomes;
    stop.done = true;
    engine.wake();
    await flooded.finished;
    // No caller gave up on a request that was let in; the others were told at once.
    expect(timedOut - before.timedOut).toBe(0);
    expect(refused - before.refused).toBeGreaterThan(0);
    // What the page left of the engine went mostly to answers, not to requests given up.
    expect((answered - before.answered) * sum(LONG)).toBeGreaterThanOrEqual((ended - began - alone) / 2);
    // And the page keeps its share: no more than twice the tokens it needs alone.
    expect(ended - began).toBeLessThanOrEqual(2 * alone);
  });
});
