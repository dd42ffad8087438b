/**
 * An OpenAI-compatible chat-completions server for tests, on 127.0.0.1 with a free port.
 * Each call gets a behaviour: answer well (reading the prompt, see src/llm/ruleClient.ts),
 * answer given text, answer slowly, fail with an HTTP status (429 with Retry-After, 500),
 * send a body that is not a completion, reset the connection, or hang.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatRequest } from '../../src/llm';
import { ruleAnswerText } from '../../src/llm';

export type FakeBehaviour =
  /** A completion: `text` (or the careful answer), after `delayMs`. */
  | { readonly kind: 'answer'; readonly text?: string; readonly delayMs?: number }
  /** An error status with an OpenAI-style error body; `retryAfter` sets the header. */
  | { readonly kind: 'status'; readonly status: number; readonly retryAfter?: string; readonly delayMs?: number; readonly message?: string }
  /** HTTP 200 whose body is not a chat completion. */
  | { readonly kind: 'bad-body' }
  /** Close the connection without an answer. */
  | { readonly kind: 'reset' }
  /** Never answer. */
  | { readonly kind: 'hang' };

export interface FakeCall {
  readonly index: number;
  readonly body: Record<string, unknown>;
  readonly headers: IncomingMessage['headers'];
  readonly behaviour: FakeBehaviour;
}

export type BehaviourFor = FakeBehaviour | ((index: number, body: Record<string, unknown>) => FakeBehaviour);

export interface FakeServerOptions {
  readonly behaviour?: BehaviourFor;
  /** Answer 400 to requests with response_format json_schema (a server without structured output). */
  readonly rejectJsonSchema?: boolean;
}

export class FakeOpenAiServer {
  readonly calls: FakeCall[] = [];
  behaviour: BehaviourFor;
  rejectJsonSchema: boolean;
  /** Requests refused for response_format (not counted in calls). */
  schemaRejections = 0;
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
    options: FakeServerOptions,
  ) {
    this.behaviour = options.behaviour ?? { kind: 'answer' };
    this.rejectJsonSchema = options.rejectJsonSchema ?? false;
  }

  /** The base URL to give the SDK (OPENAI_BASE_URL). */
  get url(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  static async start(options: FakeServerOptions = {}): Promise<FakeOpenAiServer> {
    let fake: FakeOpenAiServer | null = null;
    const server = createServer((req, res) => void fake!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fake = new FakeOpenAiServer(server, (server.address() as AddressInfo).port, options);
    return fake;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    const format = body.response_format as { type?: string } | undefined;
    if (this.rejectJsonSchema && format?.type === 'json_schema') {
      this.schemaRejections++;
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'response_format json_schema is not supported' } }));
      return;
    }
    const index = this.calls.length;
    const behaviour = typeof this.behaviour === 'function' ? this.behaviour(index, body) : this.behaviour;
    this.calls.push({ index, body, headers: req.headers, behaviour });
    const wait = (ms = 0) => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());
    switch (behaviour.kind) {
      case 'hang':
        this.hanging.add(res);
        res.on('close', () => this.hanging.delete(res));
        return;
      case 'reset':
        req.socket.destroy();
        return;
      case 'bad-body':
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>upstream proxy error</html>');
        return;
      case 'status': {
        await wait(behaviour.delayMs);
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (behaviour.retryAfter !== undefined) headers['retry-after'] = behaviour.retryAfter;
        res.writeHead(behaviour.status, headers).end(JSON.stringify({ error: { message: behaviour.message ?? `fake status ${behaviour.status}`, type: 'fake' } }));
        return;
      }
      case 'answer': {
        await wait(behaviour.delayMs);
        if (res.destroyed) return;
        const request = {
          messages: body.messages as ChatRequest['messages'],
          temperature: Number(body.temperature ?? 1),
          ...(format?.type === 'json_schema' ? { responseFormat: body.response_format as ChatRequest['responseFormat'] } : {}),
        } satisfies ChatRequest;
        const text = behaviour.text ?? ruleAnswerText(request);
        const promptTokens = request.messages.reduce((n, m) => n + Math.ceil(m.content.length / 4), 0);
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: `chatcmpl-fake-${index}`,
            object: 'chat.completion',
            created: 0,
            model: String(body.model),
            choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: text } }],
            usage: { prompt_tokens: promptTokens, completion_tokens: Math.ceil(text.length / 4), total_tokens: promptTokens + Math.ceil(text.length / 4) },
          }),
        );
        return;
      }
    }
  }
}
