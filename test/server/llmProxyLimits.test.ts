/**
 * The LLM proxy shares its model fairly: every request gets a token bound, a prompt past the
 * bound in tokens is refused (413, naming the bound), one client has at most its share at
 * the model, the queue for the model is bounded (429 and 503, with Retry-After), a request
 * the model would answer only past its timeout is refused at once (503, with Retry-After),
 * and a request whose caller leaves stops holding its place. A stand-in model that answers only
 * when told keeps every step counted, never timed.
 */
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { type ChatClient, ChatError, type ChatRequest, type ChatResponse, STRATEGIST_DEFAULTS, buildRequest } from '../../src/llm';
import type { LlmProxyOptions } from '../../src/server/llmProxy';
import { AdmissionGate } from '../../src/server/llmProxyGate';
import { createWorld, teamSituation } from '../../src/sim';
import { proxyServers } from '../helpers/proxyServers';

const servers = proxyServers('proxy-limits');

/** A model that holds every call until told to answer; what it was asked, and which calls were given up. */
class HeldModel implements ChatClient {
  readonly model = 'held';
  readonly asked: ChatRequest[] = [];
  readonly abandoned: ChatRequest[] = [];
  private readonly pending: (() => void)[] = [];
  constructor(
    readonly contextTokens?: number,
    readonly countTokens?: (request: ChatRequest) => number,
  ) {}

  get promptTokens(): ((request: ChatRequest) => number) | undefined {
    return this.countTokens;
  }

  complete(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    this.asked.push(request);
    return new Promise((resolve, reject) => {
      this.pending.push(() => resolve({ text: '1,2', model: this.model }));
      signal.addEventListener('abort', () => {
        this.abandoned.push(request);
        reject(new ChatError('aborted', 'the call was aborted'));
      });
    });
  }

  /** Answer every call held so far. */
  answerAll(): void {
    for (const answer of this.pending.splice(0)) answer();
  }
}

async function serve(client: ChatClient, options: Omit<LlmProxyOptions, 'access'> = {}): Promise<string> {
  return `${await servers.serve({ client, provider: 'held', settings: { ...STRATEGIST_DEFAULTS, timeoutMs: 60_000 }, cache: null }, options)}/api/llm`;
}

interface Reply {
  readonly status: number;
  readonly body: { error?: { kind: string; message: string }; text?: string };
  readonly retryAfter: string | undefined;
}

/** POST from a loopback address of our choosing (each address is another client to the proxy); `leave` drops the connection. */
function post(url: string, body: unknown, from = '127.0.0.1', leave?: AbortSignal): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const data = Buffer.from(JSON.stringify(body));
    const req = httpRequest(url, { method: 'POST', localAddress: from, headers: { 'content-type': 'application/json', 'content-length': data.length } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), retryAfter: res.headers['retry-after'] as string | undefined }));
    });
    req.on('error', reject);
    leave?.addEventListener('abort', () => req.destroy());
    req.end(data);
  });
}

/** Wait until `probe` holds, counting event-loop turns rather than time. */
async function until(what: string, probe: () => boolean): Promise<void> {
  for (let turn = 0; turn < 10_000; turn++) {
    if (probe()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`never happened: ${what}`);
}

/** A decision as the page asks for it (compact: two numbers). */
const decision = (): ChatRequest => buildRequest(teamSituation(createWorld(1), 0), ['navigate', 'navigate'], { format: 'compact', temperature: 0.1 });
/** A free answer (a paragraph, not numbers): a long one to the proxy's gate. */
const freeAnswer = (): ChatRequest => ({ messages: [{ role: 'user', content: 'Describe the arena and plan every move.' }], temperature: 0.7 });
const unbounded = (): ChatRequest => {
  const { maxTokens: _bound, ...rest } = decision();
  return rest;
};

describe('the LLM proxy shares its model', () => {
  it('a request without a token bound gets the default one; a bound the request sets is kept', async () => {
    const model = new HeldModel();
    const url = await serve(model);
    const replies = Promise.all([post(url, unbounded()), post(url, { ...decision(), maxTokens: 40 }, '127.0.0.2')]);
    await until('both calls at the model', () => model.asked.length === 2);
    model.answerAll();
    expect((await replies).map((r) => r.status)).toEqual([200, 200]);
    expect(model.asked.map((r) => r.maxTokens).sort((a, b) => a! - b!)).toEqual([40, 64]);
  });

  it("a prompt past the bound in tokens is refused with 413, naming the bound: the model's context less the answer, or the server's", async () => {
    // A local model counts its own tokens and has a context of 1024.
    const local = new HeldModel(1024, () => 5000);
    const refused = await post(await serve(local), unbounded());
    expect(refused.status).toBe(413);
    expect(refused.body.error!.message).toBe("the prompt is 5000 tokens; at most 1020 are taken (the model's context of 1024 tokens less 4 for the answer: two numbers and their commas)");
    expect(local.asked).toEqual([]);
    // A server's model: its tokens estimated, against the proxy's bound; 24 KB is past it.
    const server = new HeldModel();
    const text = 'Describe every wall, corner and cover spot of the arena in detail. '.repeat(180).slice(0, 12_000);
    const big = await post(await serve(server, { maxPromptTokens: 2048 }), { messages: [{ role: 'system', content: text }, { role: 'user', content: text }], temperature: 0.7 });
    expect(big.status).toBe(413);
    expect(big.body.error!.message).toMatch(/^the prompt is \d{4} tokens \(estimated\); at most 2048 are taken \(this server's bound\)$/);
    expect(server.asked).toEqual([]);
  });

  it('one client has at most its share at the model: past it, 429 with Retry-After; another client still gets in', async () => {
    const model = new HeldModel();
    const url = await serve(model, { limits: { perClient: 2, concurrent: 4, queue: 8 } });
    const mine = [post(url, decision()), post(url, decision())];
    await until('two calls at the model', () => model.asked.length === 2);
    const third = await post(url, decision());
    expect(third.status).toBe(429);
    expect(third.body.error!.message).toBe('this client already has 2 requests at the model or waiting (at most 2)');
    expect(Number(third.retryAfter)).toBeGreaterThanOrEqual(1);
    const other = post(url, decision(), '127.0.0.2');
    await until("the other client's call at the model", () => model.asked.length === 3);
    model.answerAll();
    expect((await Promise.all([...mine, other])).map((r) => r.status)).toEqual([200, 200, 200]);
  });

  it('the queue for the model is bounded: past it, 503 with Retry-After; a request whose caller leaves while it waits never reaches the model', async () => {
    const model = new HeldModel();
    const gate = new AdmissionGate({ perClient: 2, concurrent: 1, queue: 1, lightTokens: 16, heavy: 1 });
    const url = await serve(model, { gate });
    const first = post(url, decision(), '127.0.0.1');
    await until('the first call at the model', () => model.asked.length === 1);
    const leave = new AbortController();
    const left = post(url, decision(), '127.0.0.2', leave.signal).catch(() => 'left');
    await until('a call waiting', () => gate.load.waiting === 1);
    const full = await post(url, decision(), '127.0.0.3');
    expect(full.status).toBe(503);
    expect(full.body.error!.message).toBe('the model is busy: 1 requests at it and 1 waiting (at most 1)');
    expect(Number(full.retryAfter)).toBeGreaterThanOrEqual(1);
    // The waiting caller leaves: its place is free, and it never reaches the model.
    leave.abort();
    expect(await left).toBe('left');
    await until('the queue empty', () => gate.load.waiting === 0);
    const next = post(url, decision(), '127.0.0.3');
    await until('the next call waiting', () => gate.load.waiting === 1);
    model.answerAll();
    expect((await first).status).toBe(200);
    await until('the next call at the model', () => model.asked.length === 2);
    model.answerAll();
    expect((await next).status).toBe(200);
    expect(model.asked).toHaveLength(2);
    expect(model.abandoned).toEqual([]);
  });

  it('a request the model would answer only past its timeout is refused at once with 503 and a Retry-After, not queued to time out; a decision still gets in', async () => {
    let clock = 0;
    const gate = new AdmissionGate({ perClient: 2, concurrent: 4, queue: 8, lightTokens: 16, heavy: 1 }, () => clock);
    // Long answers have taken 100 s each at the model (the test's clock), past the proxy's 90.5 s for a 60 s timeout.
    for (let i = 0; i < 3; i++) {
      const earlier = await gate.enter('earlier', 64, new AbortController().signal);
      clock += 100_000;
      if (earlier.ok) earlier.release();
    }
    const model = new HeldModel();
    const url = await serve(model, { gate, now: () => clock });
    // The model is idle: the long answer is tried.
    const first = post(url, freeAnswer());
    await until('the first long answer at the model', () => model.asked.length === 1);
    // Another behind it would wait about 100 s for the place, then 100 s at the model: refused now.
    let second: Reply | undefined;
    void post(url, freeAnswer(), '127.0.0.2').then((reply) => (second = reply));
    await until('the second request answered or waiting', () => second !== undefined || gate.load.waiting > 0);
    expect(gate.load.waiting).toBe(0);
    expect(second!.status).toBe(503);
    expect(second!.body.error!.message).toMatch(/^the model would not answer in time: about \d+ ms for a place and \d+ ms at the model, past the 90500 ms this request has$/);
    // Come back once the long answer at the model is about done (a long answer's time, 100 s, as measured so far).
    expect(Number(second!.retryAfter)).toBeGreaterThanOrEqual(50);
    expect(Number(second!.retryAfter)).toBeLessThanOrEqual(100);
    // A decision is measured by decisions' time: it takes a free place.
    const page = post(url, decision(), '127.0.0.3');
    await until('the decision at the model', () => model.asked.length === 2);
    model.answerAll();
    expect((await Promise.all([first, page])).map((r) => r.status)).toEqual([200, 200]);
    expect(model.asked).toHaveLength(2);
  });

  it('a caller that gives up while its call is at the model aborts the call', async () => {
    const model = new HeldModel();
    const url = await serve(model);
    const leave = new AbortController();
    const call = post(url, decision(), '127.0.0.1', leave.signal).catch(() => 'left');
    await until('the call at the model', () => model.asked.length === 1);
    leave.abort();
    expect(await call).toBe('left');
    await until('the call aborted', () => model.abandoned.length === 1);
  });
});

describe('the admission gate', () => {
  const open = () => new AbortController().signal;
  const LIGHT = 4;
  const HEAVY = 64;

  it('gives a freed place to the waiting client with the fewest at the model, then the cheapest, not the earliest', async () => {
    const gate = new AdmissionGate({ perClient: 3, concurrent: 2, queue: 4, lightTokens: 16, heavy: 1 });
    const a1 = await gate.enter('a', LIGHT, open());
    await gate.enter('a', LIGHT, open());
    const order: string[] = [];
    const a3 = gate.enter('a', LIGHT, open()).then((r) => (order.push('a'), r));
    const b1 = gate.enter('b', LIGHT, open()).then((r) => (order.push('b'), r));
    expect(gate.load).toEqual({ running: 2, waiting: 2 });
    if (a1.ok) a1.release();
    await b1;
    expect(order).toEqual(['b']);
    expect(gate.load).toEqual({ running: 2, waiting: 1 });
    void a3;
  });

  it('a waiting request that can no longer be answered in time when a place frees is refused then, not started to time out', async () => {
    let clock = 0;
    const gate = new AdmissionGate({ perClient: 2, concurrent: 1, queue: 4, lightTokens: 16, heavy: 1 }, () => clock);
    // Decisions take 1 s at the model.
    for (let i = 0; i < 8; i++) {
      const earlier = await gate.enter('earlier', LIGHT, open());
      clock += 1000;
      if (earlier.ok) earlier.release();
    }
    const atModel = await gate.enter('a', LIGHT, open(), 3000);
    // About 1 s for the place and 1 s at the model: within its 3 s, so it waits.
    const waits = gate.enter('b', LIGHT, open(), 3000);
    expect(gate.load).toEqual({ running: 1, waiting: 1 });
    // The one at the model takes 2.5 s: the waiting one has 0.5 s left, less than a decision takes.
    clock += 2500;
    if (atModel.ok) atModel.release();
    const refused = await waits;
    expect(refused).toMatchObject({ ok: false, status: 503, message: expect.stringMatching(/^the model would not answer in time: about 0 ms for a place and 1\d{3} ms at the model, past the 500 ms this request has$/) });
    expect(gate.load).toEqual({ running: 0, waiting: 0 });
  });

  it('learns time at the model only from answered (or timed-out) requests: quick failures do not let in what cannot finish', async () => {
    let clock = 0;
    const gate = new AdmissionGate({ perClient: 2, concurrent: 1, queue: 4, lightTokens: 16, heavy: 1 }, () => clock);
    const decide = async (ms: number, measured: boolean) => {
      const entry = await gate.enter('earlier', LIGHT, open());
      clock += ms;
      if (entry.ok) entry.release(measured);
    };
    // Decisions take 1 s; then twenty model-server errors come back in 5 ms each.
    for (let i = 0; i < 8; i++) await decide(1000, true);
    for (let i = 0; i < 20; i++) await decide(5, false);
    const atModel = await gate.enter('a', LIGHT, open());
    // Still about 1 s for the place and 1 s at the model: past 1.5 s, refused at once.
    const refused = gate.enter('b', LIGHT, open(), 1500);
    expect(gate.load).toEqual({ running: 1, waiting: 0 });
    await expect(refused).resolves.toMatchObject({ ok: false, status: 503 });
    if (atModel.ok) atModel.release();
  });

  it('allows for decisions that take longer than their mean: one that fits by the mean alone but not by its spread is refused', async () => {
    let clock = 0;
    const gate = new AdmissionGate({ perClient: 2, concurrent: 1, queue: 4, lightTokens: 16, heavy: 1 }, () => clock);
    // Decisions take 0.5 s and 1.5 s in turn at the model: a mean of about 1 s, half a second either way.
    for (let i = 0; i < 40; i++) {
      const earlier = await gate.enter('earlier', LIGHT, open());
      clock += i % 2 === 0 ? 500 : 1500;
      if (earlier.ok) earlier.release();
    }
    const atModel = await gate.enter('a', LIGHT, open());
    expect(atModel.ok).toBe(true);
    // About 1 s for the place and 1 s at the model fits 2.5 s by the means; a slow one (two
    // deviations more, about 1 s) would not: refused at once, not let in to time out.
    const refused = gate.enter('b', LIGHT, open(), 2500);
    expect(gate.load).toEqual({ running: 1, waiting: 0 });
    await expect(refused).resolves.toMatchObject({ ok: false, status: 503 });
    // With room for a slow one, it waits for the place.
    const waits = gate.enter('c', LIGHT, open(), 3500);
    expect(gate.load).toEqual({ running: 1, waiting: 1 });
    clock += 1000;
    if (atModel.ok) atModel.release();
    await expect(waits).resolves.toMatchObject({ ok: true });
  });

  it('heavy answers take at most their share of places, leaving one for a decision; a full queue sheds its costliest request for a cheaper one', async () => {
    const gate = new AdmissionGate({ perClient: 2, concurrent: 3, queue: 2, lightTokens: 16, heavy: 2 });
    // Two heavy requests take two places; a third heavy one waits though a place is free.
    expect((await gate.enter('x', HEAVY, open())).ok).toBe(true);
    expect((await gate.enter('y', HEAVY, open())).ok).toBe(true);
    const heavyWaits = gate.enter('z', HEAVY, open());
    expect(gate.load).toEqual({ running: 2, waiting: 1 });
    // A decision takes the place kept free.
    const decision = await gate.enter('page', LIGHT, open());
    expect(decision.ok).toBe(true);
    expect(gate.load).toEqual({ running: 3, waiting: 1 });
    // The queue fills with another heavy request; a decision arriving then sheds the costliest, latest one.
    const shed = gate.enter('w', HEAVY, open());
    const next = gate.enter('page', LIGHT, open());
    await expect(shed).resolves.toMatchObject({ ok: false, status: 503 });
    expect(gate.load).toEqual({ running: 3, waiting: 2 });
    // A heavier newcomer than every waiting request is the one refused.
    await expect(gate.enter('v', HEAVY, open())).resolves.toMatchObject({ ok: false, status: 503, message: 'the model is busy: 3 requests at it and 2 waiting (at most 2)' });
    // The decision's place freed goes to the waiting decision, not the earlier heavy request.
    if (decision.ok) decision.release();
    await expect(next).resolves.toMatchObject({ ok: true });
    expect(gate.load).toEqual({ running: 3, waiting: 1 });
    void heavyWaits;
  });
});
