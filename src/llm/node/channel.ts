/**
 * One chat client shared by the threads of a process: the thread that holds it (a
 * tournament's coordinator, with the local engine loaded once) serves it on a named channel,
 * and worker threads ask through a ChannelChatClient. Requests, answers, failures and aborts
 * travel as plain messages on a BroadcastChannel (every thread of the process listening on
 * the name hears each one; an answer names its call). Node only.
 */
import { BroadcastChannel, threadId } from 'node:worker_threads';
import { CALL_FAILURE_KINDS, type CallFailureKind, type ChatClient, ChatError, type ChatRequest, type ChatResponse } from '../chat';

interface PlainError {
  readonly kind: CallFailureKind;
  readonly message: string;
  readonly status?: number;
  readonly retryAfterMs?: number;
}

type Message =
  | { readonly kind: 'request'; readonly id: string; readonly request: ChatRequest }
  | { readonly kind: 'abort'; readonly id: string }
  | { readonly kind: 'answer'; readonly id: string; readonly response: ChatResponse }
  | { readonly kind: 'failure'; readonly id: string; readonly error: PlainError };

function plain(err: unknown): PlainError {
  const e = err instanceof ChatError ? err : new ChatError('server', err instanceof Error ? err.message : String(err));
  return { kind: e.kind, message: e.message, ...(e.status !== undefined ? { status: e.status } : {}), ...(e.retryAfterMs !== undefined ? { retryAfterMs: e.retryAfterMs } : {}) };
}

const dataOf = (event: unknown) => (event as { data: Message }).data;

/** Answer the requests of other threads on `name` with `client`; returns a function that stops. */
export function serveChatClient(client: ChatClient, name: string): () => void {
  const channel = new BroadcastChannel(name);
  const calls = new Map<string, AbortController>();
  let open = true;
  // A call still under way when serving stops settles after the channel is closed: its
  // answer has nobody to go to (posting it would throw and end the process).
  const post = (message: Message) => {
    if (open) channel.postMessage(message);
  };
  channel.onmessage = (event) => {
    const message = dataOf(event);
    if (message.kind === 'abort') calls.get(message.id)?.abort();
    if (message.kind !== 'request') return;
    const abort = new AbortController();
    calls.set(message.id, abort);
    new Promise<ChatResponse>((resolve) => resolve(client.complete(message.request, abort.signal)))
      .then(
        (response) => post({ kind: 'answer', id: message.id, response }),
        (err: unknown) => post({ kind: 'failure', id: message.id, error: plain(err) }),
      )
      .finally(() => calls.delete(message.id));
  };
  channel.unref();
  return () => {
    open = false;
    for (const abort of calls.values()) abort.abort();
    channel.close();
  };
}

interface Waiting {
  readonly resolve: (response: ChatResponse) => void;
  readonly reject: (err: ChatError) => void;
}

/** A client whose calls another thread of this process answers (serveChatClient). */
export class ChannelChatClient implements ChatClient {
  private channel: BroadcastChannel | null = null;
  private readonly waiting = new Map<string, Waiting>();
  private calls = 0;

  constructor(
    private readonly name: string,
    readonly model: string,
  ) {}

  complete(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    if (signal.aborted) return Promise.reject(new ChatError('aborted', 'the call was aborted'));
    const channel = this.open();
    const id = `${threadId}:${this.calls++}`;
    return new Promise<ChatResponse>((resolve, reject) => {
      const done = () => {
        signal.removeEventListener('abort', onAbort);
        this.waiting.delete(id);
        // An idle channel does not keep the thread alive.
        if (this.waiting.size === 0) channel.unref();
      };
      const onAbort = () => {
        done();
        channel.postMessage({ kind: 'abort', id } satisfies Message);
        reject(new ChatError('aborted', 'the call was aborted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(id, {
        resolve: (response) => {
          done();
          resolve(response);
        },
        reject: (err) => {
          done();
          reject(err);
        },
      });
      channel.ref();
      channel.postMessage({ kind: 'request', id, request } satisfies Message);
    });
  }

  /** Stop listening; calls still waiting fail as aborted (the thread that serves the model keeps it). */
  async close(): Promise<void> {
    for (const waiting of [...this.waiting.values()]) waiting.reject(new ChatError('aborted', 'the language model was closed'));
    this.channel?.close();
    this.channel = null;
  }

  private open(): BroadcastChannel {
    if (this.channel) return this.channel;
    const channel = new BroadcastChannel(this.name);
    channel.onmessage = (event) => {
      const message = dataOf(event);
      if (message.kind !== 'answer' && message.kind !== 'failure') return;
      const waiting = this.waiting.get(message.id);
      if (!waiting) return;
      if (message.kind === 'answer') waiting.resolve(message.response);
      else {
        const { kind, message: text, status, retryAfterMs } = message.error;
        waiting.reject(new ChatError((CALL_FAILURE_KINDS as readonly string[]).includes(kind) ? kind : 'server', text, status, retryAfterMs));
      }
    };
    channel.unref();
    return (this.channel = channel);
  }
}
