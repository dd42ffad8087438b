/**
 * The page's own strategist model (src/llm/pageModel.ts, pageAccess.ts) over a stand-in
 * engine: files are checked against the server's listing before they load; a compact answer
 * is read from the numbers' probabilities as the Node engine reads them (after the prompt,
 * then after each number and its comma; uncalibrated with an adapter, calibrated without);
 * and the setting decides who runs the model, 'auto' asking the server where the page cannot.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ChatError,
  type ChatRequest,
  type LlmFiles,
  type PageEngine,
  PageChatClient,
  PageModelRefused,
  chosenPrefix,
  contentFreeState,
  fetchCheckedFile,
  gemmaChatText,
  PAGE_MODEL_TIMEOUT_MS,
  pageLlmAccess,
  pageModelBlocker,
} from '../../src/llm';

const signal = () => new AbortController().signal;
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A fetch over fixed answers by path. */
function fakeFetch(routes: Record<string, () => Response>): { fetch: (url: string) => Promise<Response>; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    fetch: async (url: string) => {
      asked.push(url);
      const route = routes[url];
      return route ? route() : new Response(JSON.stringify({ error: { kind: 'http', message: `no route ${url}` } }), { status: 404 });
    },
  };
}

describe("the page's check of a lent file", () => {
  const bytes = new TextEncoder().encode('GGUF model bytes');
  const file = { role: 'model' as const, file: 'm.gguf', bytes: bytes.length, sha256: sha(bytes) };
  const serve = () => fakeFetch({ '/api/llm/files/m.gguf': () => new Response(bytes) }).fetch;

  it('gives the bytes whose sha256 is the listing\'s', async () => {
    const blob = await fetchCheckedFile(file, serve());
    expect(new Uint8Array(await blob.arrayBuffer())).toEqual(bytes);
  });

  it('refuses bytes whose sha256 is not the listing\'s, naming the file and both digests', async () => {
    const listed = { ...file, sha256: 'f'.repeat(64) };
    await expect(fetchCheckedFile(listed, serve())).rejects.toThrow(new PageModelRefused(`the model file m.gguf is not the one the server lists: its SHA-256 is ${sha(bytes)}, the listing says ${'f'.repeat(64)}; it was not loaded`));
  });

  it('refuses bytes of another length than the listing\'s', async () => {
    await expect(fetchCheckedFile({ ...file, bytes: 99 }, serve())).rejects.toThrow(/m\.gguf is 16 bytes, the server's listing says 99: it was not loaded/);
  });
});

/** An engine that answers the numbers' probabilities from a table by prompt, and records each body. */
function tableEngine(table: (prompt: string) => readonly number[]): PageEngine & { bodies: Record<string, unknown>[] } {
  const bodies: Record<string, unknown>[] = [];
  return {
    bodies,
    async complete(body) {
      bodies.push({ ...body });
      const probs = table(String(body.prompt));
      return { choices: [{ text: '', logprobs: { content: [{ top_probs: probs.map((prob, i) => ({ token: String(i + 1), prob })) }] } }], usage: { prompt_tokens: 7 } };
    },
    async close() {},
  };
}

const request: ChatRequest = {
  messages: [
    { role: 'system', content: 'Pick skills.' },
    { role: 'user', content: 'LOW MID MID MID combat' },
  ],
  temperature: 0.1,
  numberList: { count: 2, max: 4 },
};

describe("the page's compact answer", () => {
  const prompt = gemmaChatText(request.messages);

  it('reads each agent\'s number from the probabilities after the prompt and the numbers before it, the most likely with an adapter', async () => {
    const engine = tableEngine((p) => (p === prompt ? [0.1, 0.2, 0.6, 0.1] : p === `${prompt}3,` ? [0.5, 0.3, 0.1, 0.1] : [1, 0, 0, 0]));
    const client = new PageChatClient(engine, { model: 'gemma+adapter', calibrate: false });
    const answer = await client.complete(request, signal());
    expect(answer).toEqual({ text: '3,1', completionTokens: 3, promptTokens: 7, model: 'gemma+adapter' });
    expect(engine.bodies.map((b) => b.prompt)).toEqual([prompt, `${prompt}3,`]);
    // The Node engine's sampler chain: the numbers lifted, the top 4 kept, temperature 1, read after sampling.
    expect(engine.bodies[0]).toMatchObject({ max_tokens: 1, n_probs: 4, post_sampling_probs: true, top_k: 4, temperature: 1, samplers: ['top_k', 'temperature'], logit_bias: [['1', 1000], ['2', 1000], ['3', 1000], ['4', 1000]] });
    expect(client.answersAlike(request)).toBe(true);
  });

  it('divides by the prior on the content-free state where no adapter runs, read once per system prompt', async () => {
    const free = gemmaChatText([request.messages[0]!, { role: 'user', content: contentFreeState(2) }]);
    // The model likes 3 whatever the state: a 2 well above its prior wins.
    const engine = tableEngine((p) => (p.startsWith(free) ? [0.05, 0.1, 0.8, 0.05] : [0.05, 0.3, 0.6, 0.05]));
    const client = new PageChatClient(engine, { model: 'gemma', calibrate: true });
    expect((await client.complete(request, signal())).text).toBe('2,2');
    const asked = engine.bodies.length;
    expect(engine.bodies.map((b) => b.prompt)).toContain(free + chosenPrefix([2]));
    await client.complete(request, signal());
    // The second answer reads no prior again.
    expect(engine.bodies.length - asked).toBe(2);
  });

  it('says so when the engine gives no probability to any number', async () => {
    const client = new PageChatClient(tableEngine(() => [0, 0, 0, 0]), { model: 'gemma', calibrate: false });
    await expect(client.complete(request, signal())).rejects.toThrow(/gave no probability to any number 1-4/);
  });
});

describe('where the page runs its model', () => {
  const status = { configured: true, model: 'gemma-3-270m-q4_k_m+strategist', provider: 'local llama.cpp (CPU, 1 thread)', format: 'terse' };
  const listing: LlmFiles = { files: [{ role: 'model', file: 'm.gguf', bytes: 4, sha256: 'a'.repeat(64) }] };
  const routes = (files: boolean) => ({
    '/api/llm/status': () => Response.json(status),
    ...(files ? { '/api/llm/files': () => Response.json(listing) } : {}),
  });

  it('auto: in the page where it can and the server lends the files, else the server', async () => {
    const can = fakeFetch(routes(true));
    const inPage = await pageLlmAccess({ runs: 'auto', wasmUrl: '/w.wasm', fetch: can.fetch, blocker: () => null }).availability();
    expect(inPage).toMatchObject({ ok: true, model: status.model, provider: 'this page (llama.cpp in WebAssembly, 1 thread)' });
    // The page's own model has its own time to answer (a decision in WebAssembly takes seconds), the server's other settings.
    const asked = await pageLlmAccess({ runs: 'server', wasmUrl: '/w.wasm', fetch: fakeFetch(routes(true)).fetch, blocker: () => null }).availability();
    if (!inPage.ok || !asked.ok) throw new Error('both available');
    expect(asked.settings.timeoutMs).toBeLessThan(PAGE_MODEL_TIMEOUT_MS);
    expect(inPage.settings).toEqual({ ...asked.settings, timeoutMs: PAGE_MODEL_TIMEOUT_MS });
    const noFiles = await pageLlmAccess({ runs: 'auto', wasmUrl: '/w.wasm', fetch: fakeFetch(routes(false)).fetch, blocker: () => null }).availability();
    expect(noFiles).toMatchObject({ ok: true, provider: 'server proxy to local llama.cpp (CPU, 1 thread)' });
    const isolated = fakeFetch(routes(true));
    const cannot = await pageLlmAccess({ runs: 'auto', wasmUrl: '/w.wasm', fetch: isolated.fetch, blocker: () => 'no isolation' }).availability();
    expect(cannot).toMatchObject({ ok: true, provider: 'server proxy to local llama.cpp (CPU, 1 thread)' });
    // A page that cannot run the model does not even ask for the files.
    expect(isolated.asked).toEqual(['/api/llm/status']);
  });

  it('browser: in the page or not at all, saying why', async () => {
    const access = pageLlmAccess({ runs: 'browser', wasmUrl: '/w.wasm', fetch: fakeFetch(routes(false)).fetch, blocker: () => null });
    const availability = await access.availability();
    expect(availability).toMatchObject({ ok: false, reason: expect.stringMatching(/^the page cannot run the language model itself .*: no route \/api\/llm\/files/) });
    await expect(access.connect()).rejects.toThrow(/the page cannot run the language model itself/);
  });

  it("frees the page's engine when it fails to start (its worker holds the model), and says why", async () => {
    let closed = 0;
    const openModel = async () => ({
      model: 'm',
      complete: async () => ({ text: '' }),
      warm: async () => {
        throw new ChatError('server', 'out of memory');
      },
      close: async () => {
        closed++;
      },
    });
    const access = pageLlmAccess({ runs: 'browser', wasmUrl: '/w.wasm', fetch: fakeFetch(routes(true)).fetch, blocker: () => null, openModel });
    await expect(access.connect()).rejects.toThrow('out of memory');
    expect(closed).toBe(1);
  });

  it('asks for the listing again after the server failed to give it, and keeps a listing once given', async () => {
    // The listing's route fails twice (the server unreachable, then an error status), then answers.
    const answers: (() => Response)[] = [
      () => {
        throw new TypeError('Failed to fetch');
      },
      () => Response.json({ error: { kind: 'http', message: 'the model files are being checked' } }, { status: 503 }),
      () => Response.json(listing),
    ];
    const server = fakeFetch({ ...routes(false), '/api/llm/files': () => answers.shift()!() });
    const access = pageLlmAccess({ runs: 'auto', wasmUrl: '/w.wasm', fetch: server.fetch, blocker: () => null });
    const listingsAsked = () => server.asked.filter((url) => url === '/api/llm/files').length;
    expect(await access.availability()).toMatchObject({ ok: true, provider: 'server proxy to local llama.cpp (CPU, 1 thread)' });
    expect(await access.availability()).toMatchObject({ ok: true, provider: 'server proxy to local llama.cpp (CPU, 1 thread)' });
    expect(await access.availability()).toMatchObject({ ok: true, provider: 'this page (llama.cpp in WebAssembly, 1 thread)' });
    expect(listingsAsked()).toBe(3);
    // Given once, the listing is kept: not asked again.
    expect(await access.availability()).toMatchObject({ ok: true, provider: 'this page (llama.cpp in WebAssembly, 1 thread)' });
    expect(listingsAsked()).toBe(3);
  });

  it('closed while it still asks the server, starts no engine in the page', async () => {
    let answerStatus!: () => void;
    const statusHeld = new Promise<void>((resolve) => (answerStatus = resolve));
    const server = fakeFetch(routes(true));
    const fetch = async (url: string) => {
      if (url === '/api/llm/status') await statusHeld;
      return server.fetch(url);
    };
    let started = 0;
    const openModel = async () => {
      started++;
      return { model: 'm', complete: async () => ({ text: '' }), warm: async () => {}, close: async () => {} };
    };
    const access = pageLlmAccess({ runs: 'browser', wasmUrl: '/w.wasm', fetch, blocker: () => null, openModel });
    const connecting = access.connect();
    const closing = access.close();
    answerStatus();
    await expect(connecting).rejects.toThrow('the language model was closed');
    await closing;
    expect(started).toBe(0);
  });

  it('server: the proxy, as before', async () => {
    const access = pageLlmAccess({ runs: 'server', wasmUrl: '/w.wasm', fetch: fakeFetch(routes(true)).fetch, blocker: () => null });
    expect(await access.availability()).toMatchObject({ ok: true, provider: 'server proxy to local llama.cpp (CPU, 1 thread)' });
  });

  it('needs WebAssembly, the page\'s crypto and cross-origin isolation', () => {
    const subtle = {};
    expect(pageModelBlocker({ crossOriginIsolated: true, WebAssembly: {}, crypto: { subtle } })).toBeNull();
    expect(pageModelBlocker({ crossOriginIsolated: false, WebAssembly: {}, crypto: { subtle } })).toMatch(/not cross-origin isolated/);
    expect(pageModelBlocker({ crossOriginIsolated: true, WebAssembly: {}, crypto: {} })).toMatch(/cannot check the model's digest/);
    expect(pageModelBlocker({ crossOriginIsolated: true, crypto: { subtle } })).toMatch(/no WebAssembly/);
  });
});
