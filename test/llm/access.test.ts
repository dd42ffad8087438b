/**
 * The shared way to a model (src/llm/access.ts): the lazy access opens once and closes what
 * it opened, even an engine whose open settles after close(); the deferred access, closed
 * before its access is given, lets nothing open afterwards. Each open is a promise the test
 * settles by hand, so every order is set, none timed.
 */
import { describe, expect, it } from 'vitest';
import { type ChatClient, type LlmAccess, type LlmAvailability, type LlmConnection, STRATEGIST_DEFAULTS, deferredLlmAccess, lazyLlmAccess } from '../../src/llm';

/** A client that counts how often it was closed. */
function countedClient(): ChatClient & { closes: number } {
  return {
    model: 'm',
    closes: 0,
    complete: async () => ({ text: '1,1' }),
    async close() {
      this.closes++;
    },
  };
}

const connectionTo = (client: ChatClient): LlmConnection => ({ client, provider: 'test', settings: STRATEGIST_DEFAULTS, cache: null });
const available = async (): Promise<LlmAvailability> => ({ ok: true, model: 'm', provider: 'test', settings: STRATEGIST_DEFAULTS });

/** Opens the test settles by hand: each open's promise, in the order they started. */
function handOpens() {
  const started: { resolve: (connection: LlmConnection) => void; reject: (err: Error) => void }[] = [];
  const open = () => new Promise<LlmConnection>((resolve, reject) => started.push({ resolve, reject }));
  return { open, started };
}

describe('the lazy access', () => {
  it('closed while its engine is still opening, closes the client once the open settles, and starts no open after', async () => {
    const opens = handOpens();
    const access = lazyLlmAccess(available, opens.open);
    const connecting = access.connect();
    const closing = access.close();
    await expect(access.connect()).rejects.toThrow('the language model was closed');
    expect(opens.started).toHaveLength(1);
    const client = countedClient();
    opens.started[0]!.resolve(connectionTo(client));
    await closing;
    expect(client.closes).toBe(1);
    // Whoever asked before close() gets the connection it asked for (its client closed with the rest).
    expect((await connecting).client).toBe(client);
    expect(opens.started).toHaveLength(1);
  });

  it('keeps the open that follows a failed one, so close() frees its client and no third open starts', async () => {
    const opens = handOpens();
    const access = lazyLlmAccess(available, opens.open);
    // Two callers share the first open; the first tries again at once when it fails.
    const first = access.connect();
    const retried = first.catch(() => access.connect());
    const second = access.connect();
    opens.started[0]!.reject(new Error('the server is not up yet'));
    await expect(second).rejects.toThrow('the server is not up yet');
    expect(opens.started).toHaveLength(2);
    const client = countedClient();
    opens.started[1]!.resolve(connectionTo(client));
    const connection = await retried;
    // The open kept is shared, not started again beside it.
    const again = access.connect();
    expect(opens.started).toHaveLength(2);
    expect(await again).toBe(connection);
    await access.close();
    expect(client.closes).toBe(1);
  });
});

describe('the deferred access', () => {
  /** Opens that give a counted client at once. */
  function quickOpens() {
    const client = countedClient();
    let started = 0;
    const open = async () => {
      started++;
      return connectionTo(client);
    };
    return { open, client, started: () => started };
  }

  it('closed before its access is given, refuses a connect that was waiting for it and any after, and opens nothing', async () => {
    const opens = quickOpens();
    let give!: (access: LlmAccess) => void;
    const access = deferredLlmAccess(new Promise<LlmAccess>((resolve) => (give = resolve)));
    const waiting = access.connect();
    await access.close();
    give(lazyLlmAccess(available, opens.open));
    await expect(waiting).rejects.toThrow('the language model was closed');
    await expect(access.connect()).rejects.toThrow('the language model was closed');
    expect(opens.started()).toBe(0);
  });

  it('closed once its access is given, closes that access, and a connect still waiting its turn opens nothing', async () => {
    const opens = quickOpens();
    const given = Promise.resolve(lazyLlmAccess(available, opens.open));
    const access = deferredLlmAccess(given);
    await given;
    const connecting = access.connect();
    // connect() is still waiting its turn for the given access: close() comes first.
    await access.close();
    await expect(connecting).rejects.toThrow('the language model was closed');
    expect(opens.started()).toBe(0);
  });

  it('closes the client its access opened before close()', async () => {
    const opens = quickOpens();
    const access = deferredLlmAccess(Promise.resolve(lazyLlmAccess(available, opens.open)));
    expect((await access.connect()).client).toBe(opens.client);
    await access.close();
    expect(opens.client.closes).toBe(1);
    await expect(access.connect()).rejects.toThrow('the language model was closed');
    expect(opens.started()).toBe(1);
  });
});
