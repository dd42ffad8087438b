/**
 * One chat client shared by the threads of a process (the tournament's worker threads ask
 * the coordinator's local engine): answers, failures with their kind, and aborts cross the
 * channel; calls on another channel are not answered.
 */
import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChatClient, ChatError, type ChatRequest } from '../../src/llm';
import { ChannelChatClient, serveChatClient } from '../../src/llm/node/channel';

const request = (content: string): ChatRequest => ({ messages: [{ role: 'user', content }], temperature: 0.1, numberList: { count: 2, max: 4 } });

/** A client that answers "1,3", fails on "fail", and waits on "wait" until aborted. */
function served() {
  const aborted: string[] = [];
  const client: ChatClient = {
    model: 'served',
    complete(req, signal) {
      const text = req.messages[0]!.content;
      if (text === 'fail') return Promise.reject(new ChatError('rate-limit', 'slow down', 429, 1500));
      if (text === 'wait') {
        return new Promise((_, reject) =>
          signal.addEventListener('abort', () => {
            aborted.push(text);
            reject(new ChatError('aborted', 'aborted'));
          }),
        );
      }
      return Promise.resolve({ text: '1,3', promptTokens: 42, completionTokens: 3, model: 'served' });
    },
  };
  return { client, aborted };
}

const stops: (() => void)[] = [];
afterEach(() => stops.splice(0).forEach((stop) => stop()));

describe('a chat client shared over a channel', () => {
  it('answers, and fails with the kind and retry delay the client gave', async () => {
    const name = `test-${randomUUID()}`;
    const { client } = served();
    stops.push(serveChatClient(client, name));
    const remote = new ChannelChatClient(name, 'served');
    const [a, b] = await Promise.all([remote.complete(request('x'), new AbortController().signal), remote.complete(request('y'), new AbortController().signal)]);
    expect(a).toEqual({ text: '1,3', promptTokens: 42, completionTokens: 3, model: 'served' });
    expect(b.text).toBe('1,3');
    const error = await remote.complete(request('fail'), new AbortController().signal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChatError);
    expect(error).toMatchObject({ kind: 'rate-limit', message: 'slow down', status: 429, retryAfterMs: 1500 });
  });

  it('an abort reaches the call on the serving side', async () => {
    const name = `test-${randomUUID()}`;
    const { client, aborted } = served();
    stops.push(serveChatClient(client, name));
    const remote = new ChannelChatClient(name, 'served');
    const abort = new AbortController();
    const call = remote.complete(request('wait'), abort.signal);
    // The request must have crossed before the abort does: a round trip first.
    await remote.complete(request('x'), new AbortController().signal);
    abort.abort();
    await expect(call).rejects.toMatchObject({ kind: 'aborted' });
    await remote.complete(request('x'), new AbortController().signal);
    expect(aborted).toEqual(['wait']);
  });

  it('answers a worker thread of the process', async () => {
    const name = `test-${randomUUID()}`;
    stops.push(serveChatClient(served().client, name));
    // A plain-JS worker speaking the channel's protocol (ChannelChatClient's messages).
    const worker = new Worker(
      `const { BroadcastChannel, parentPort, workerData } = require('node:worker_threads');
       const channel = new BroadcastChannel(workerData);
       channel.onmessage = (e) => { if (e.data.kind === 'answer') { parentPort.postMessage(e.data.response.text); channel.close(); } };
       channel.postMessage({ kind: 'request', id: 'w:0', request: ${JSON.stringify(request('from a worker'))} });`,
      { eval: true, workerData: name },
    );
    const text = await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(text).toBe('1,3');
  });

  it('stopping while a call is under way: the call is aborted and its late answer is dropped, not posted on the closed channel', async () => {
    const name = `test-${randomUUID()}`;
    const { client, aborted } = served();
    const stop = serveChatClient(client, name);
    const remote = new ChannelChatClient(name, 'served');
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => void rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      const call = remote.complete(request('wait'), new AbortController().signal);
      await remote.complete(request('x'), new AbortController().signal); // 'wait' has crossed
      stop();
      // The serving side's call settles (aborted) after the channel closed.
      await new Promise((resolve) => setImmediate(resolve)); // after the microtasks that settle it
      expect(aborted).toEqual(['wait']);
      expect(rejections).toEqual([]);
      void call.catch(() => undefined);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });
});
