/**
 * Participants playing llm at once (src/bench/participants.ts): each asks one decision per
 * period of its strategist's rate, whatever the answers do, and a model that answers K a
 * second serves about K / rate of them. On a fake clock beside a fake model that answers one
 * decision at a time, a fixed time each; then through the proxy on a stand-in model. Counted,
 * never timed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ChatClient, type ChatRequest, type ChatResponse, STRATEGIST_DEFAULTS, fixedLlmAccess } from '../../src/llm';
import { pageRequests, participantsOnProxy, spreadOver } from '../../src/bench/llmProxy';
import { type AskDecision, type ParticipantClock, participantCounts, participantsServed, runParticipants } from '../../src/bench/participants';
import { llmProxyRoutes } from '../../src/server/llmProxy';
import { createAppServer, listen } from '../../src/server/server';

/** A clock that moves only from timer to timer, letting every promise settle in between. */
class FakeClock implements ParticipantClock {
  private time = 0;
  private readonly timers: { readonly at: number; readonly fire: () => void }[] = [];

  now(): number {
    return this.time;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.at(this.time + ms, resolve));
  }

  at(time: number, fire: () => void): void {
    this.timers.push({ at: time, fire });
  }

  /** Fire timers in time order (those at one time in the order set) until `work` settles. */
  async run<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    void work.then(() => (settled = true), () => (settled = true));
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      if (settled) return work;
      const next = this.timers.reduce((best, t, i) => (t.at < this.timers[best]!.at ? i : best), 0);
      const timer = this.timers.splice(next, 1)[0];
      if (!timer) throw new Error('nothing left to wait for, and the run has not ended');
      this.time = Math.max(this.time, timer.at);
      timer.fire();
    }
  }
}

/**
 * A model that answers one decision at a time, each in 1000 / perSecond ms of the clock; a
 * decision it could no longer answer within its caller's timeout is dropped unanswered
 * without taking the model's time (the proxy's gate refuses it). Keeps when each participant
 * asked.
 */
function serialModel(clock: FakeClock, perSecond: number): { readonly ask: AskDecision; readonly sent: Map<number, number[]> } {
  const sent = new Map<number, number[]>();
  const queue: { readonly sentAt: number; readonly timeoutMs: number; readonly answer: (ok: boolean) => void }[] = [];
  const answerMs = 1000 / perSecond;
  let busy = false;
  const next = (): void => {
    const job = queue.shift();
    if (!job) return void (busy = false);
    if (clock.now() + answerMs - job.sentAt > job.timeoutMs) {
      job.answer(false);
      return next();
    }
    busy = true;
    clock.at(clock.now() + answerMs, () => {
      job.answer(true);
      next();
    });
  };
  const ask: AskDecision = (participant, _decision, timeoutMs) =>
    new Promise((answer) => {
      sent.set(participant, [...(sent.get(participant) ?? []), clock.now()]);
      queue.push({ sentAt: clock.now(), timeoutMs, answer });
      if (!busy) next();
    });
  return { ask, sent };
}

const RATE = { rateHz: 2, timeoutMs: 2000 };

describe('participants asking their strategist\'s decisions at once', () => {
  it('each asks one decision per period, as many when the model falls behind as when it keeps up', async () => {
    for (const participants of [2, 12]) {
      const clock = new FakeClock();
      const model = serialModel(clock, 10);
      const served = await clock.run(runParticipants({ participants, ...RATE, ms: 60_000, ask: model.ask, clock }));
      expect(served.asked).toBe(participants * 120);
      expect([...model.sent.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: participants }, (_, p) => p));
      for (const times of model.sent.values()) {
        expect(times).toHaveLength(120);
        // Never two decisions of one participant within a period (the clock is the fake one).
        expect(times.slice(1).every((t, i) => t - times[i]! >= 500 - 1e-6)).toBe(true);
      }
    }
  });

  it('a model answering 10 decisions a second serves 5 participants asking 2 a second, and not 6', async () => {
    const shareOf = async (participants: number) => {
      const clock = new FakeClock();
      return clock.run(runParticipants({ participants, ...RATE, ms: 60_000, ask: serialModel(clock, 10).ask, clock }));
    };
    expect((await shareOf(5)).share).toBe(1);
    const six = await shareOf(6);
    // The backlog grows until decisions wait past the timeout; then the model answers 10 of every 12.
    expect(six.share).toBeLessThan(0.95);
    expect(six.share).toBeGreaterThan(0.8);
    // The bench's search: 1, 2, 3, 4 served, 6 not; 5 is not among the counts tried.
    const search = await participantsServed(shareOf, 0.95, 20);
    expect(search.tried.map((t) => t.participants)).toEqual([1, 2, 3, 4, 6]);
    expect(search.served).toBe(4);
  });

  it('tries 1, 2, 3, 4 and then every second count up to the most', () => {
    expect(participantCounts(20)).toEqual([1, 2, 3, 4, 6, 8, 10, 12, 14, 16, 18, 20]);
  });
});

describe('participants through the proxy, on a stand-in model', () => {
  const root = mkdtempSync(join(tmpdir(), 'hillmind-participants-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('each participant\'s decisions reach the model, each its own situation, all answered', async () => {
    const asked: ChatRequest[] = [];
    const client: ChatClient = {
      model: 'stand-in',
      complete: async (request: ChatRequest): Promise<ChatResponse> => {
        asked.push(request);
        return { text: '1,2', model: 'stand-in' };
      },
    };
    const access = fixedLlmAccess({ client, provider: 'stand-in', settings: { ...STRATEGIST_DEFAULTS, timeoutMs: 60_000 }, cache: null });
    const running = await listen(createAppServer({ root, routes: [llmProxyRoutes({ access })] }), 0);
    try {
      // Twelve different situations of the page's (some of its positions repeat a prompt).
      const requests = pageRequests().filter((r, i, all) => all.findIndex((q) => JSON.stringify(q.messages) === JSON.stringify(r.messages)) === i).slice(0, 12);
      // 3 participants asking 4 decisions a second for 1 s; a timeout no loaded machine reaches.
      const served = await participantsOnProxy(`${running.url}/api/llm`, spreadOver(requests), 3, 1000, { rateHz: 4, timeoutMs: 30_000 });
      expect(served).toEqual({ asked: 12, answered: 12, share: 1, unanswered: new Map() });
      // At once the participants ask different situations: all twelve, each once.
      expect(asked.map((r) => requests.indexOf(requests.find((q) => JSON.stringify(q.messages) === JSON.stringify(r.messages))!)).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 12 }, (_, i) => i),
      );
    } finally {
      await running.close();
    }
  });
});
