/**
 * Who may use the proxy's model now: at most `concurrent` requests at the model at once,
 * at most `queue` more waiting for it, and at most `perClient` of one client's in either
 * (a client is a remote address, as for the rate limit). Past its own share a client is
 * told 429; when the queue is full, 503; both with a Retry-After. A freed place goes to
 * the waiting request whose client has the fewest at the model (the earliest among equals),
 * so a client that keeps its share full cannot push the others' requests back.
 *
 * Without it, one client's 30 requests sat at the model (each held past its caller's
 * timeout), and the page got 0-3 of 18 decisions.
 */

export interface GateLimits {
  /** Requests of one client at the model or waiting for it. */
  readonly perClient: number;
  /** Requests at the model at once (the local engine's sequences). */
  readonly concurrent: number;
  /** Requests waiting for a place. */
  readonly queue: number;
}

/**
 * The page's two teams decide at once (2 per client); the local engine has 4 sequences;
 * 8 waiting is two rounds of them, about 1 s of decisions on 2 cores.
 */
export const DEFAULT_GATE_LIMITS: GateLimits = { perClient: 2, concurrent: 4, queue: 8 };

export type Admission =
  | { readonly ok: true; release(): void }
  | { readonly ok: false; readonly status: 429 | 503; readonly retryAfterSeconds: number; readonly message: string }
  | { readonly ok: false; readonly status: 499; readonly message: string };

interface Waiter {
  readonly client: string;
  readonly admit: () => void;
}

/** Weight of the latest request in the running mean of time at the model (for Retry-After). */
const MEAN_WEIGHT = 0.2;

export class AdmissionGate {
  private readonly running = new Map<string, number>();
  private readonly waiting: Waiter[] = [];
  private inFlight = 0;
  /** Running mean of ms a request spends at the model. */
  private meanMs = 500;

  constructor(
    readonly limits: GateLimits = DEFAULT_GATE_LIMITS,
    private readonly now: () => number = Date.now,
  ) {
    for (const [key, value] of Object.entries(limits)) {
      if (!Number.isInteger(value) || value < (key === 'queue' ? 0 : 1)) throw new Error(`AdmissionGate: ${key} must be a whole number${key === 'queue' ? '' : ' of at least 1'}, got ${value}`);
    }
  }

  /** Requests at the model now, and waiting. */
  get load(): { readonly running: number; readonly waiting: number } {
    return { running: this.inFlight, waiting: this.waiting.length };
  }

  /**
   * A place at the model for `client`, or why not. Waits where the model is busy and the
   * queue has room; gives up (499) when `signal` aborts while waiting. Call release() once
   * the request is done with the model.
   */
  enter(client: string, signal: AbortSignal): Promise<Admission> {
    const { perClient, concurrent, queue } = this.limits;
    const own = (this.running.get(client) ?? 0) + this.waiting.filter((w) => w.client === client).length;
    if (own >= perClient) {
      return Promise.resolve({ ok: false, status: 429, retryAfterSeconds: this.retryAfter(1), message: `this client already has ${own} requests at the model or waiting (at most ${perClient})` });
    }
    if (signal.aborted) return Promise.resolve({ ok: false, status: 499, message: 'the request was abandoned' });
    if (this.inFlight < concurrent) return Promise.resolve(this.admit(client));
    if (this.waiting.length >= queue) {
      return Promise.resolve({
        ok: false,
        status: 503,
        retryAfterSeconds: this.retryAfter(this.waiting.length + 1),
        message: `the model is busy: ${this.inFlight} requests at it and ${this.waiting.length} waiting (at most ${queue})`,
      });
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        client,
        admit: () => {
          signal.removeEventListener('abort', leave);
          resolve(this.admit(client));
        },
      };
      const leave = () => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve({ ok: false, status: 499, message: 'the request was abandoned while it waited for the model' });
      };
      signal.addEventListener('abort', leave, { once: true });
      this.waiting.push(waiter);
    });
  }

  private admit(client: string): Admission {
    this.inFlight++;
    this.running.set(client, (this.running.get(client) ?? 0) + 1);
    const started = this.now();
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.meanMs += MEAN_WEIGHT * (this.now() - started - this.meanMs);
        this.inFlight--;
        const left = (this.running.get(client) ?? 1) - 1;
        if (left > 0) this.running.set(client, left);
        else this.running.delete(client);
        this.next();
      },
    };
  }

  /** Give a free place to the waiting request whose client has the fewest at the model. */
  private next(): void {
    if (this.inFlight >= this.limits.concurrent || this.waiting.length === 0) return;
    let best = 0;
    for (let i = 1; i < this.waiting.length; i++) {
      if ((this.running.get(this.waiting[i]!.client) ?? 0) < (this.running.get(this.waiting[best]!.client) ?? 0)) best = i;
    }
    const [waiter] = this.waiting.splice(best, 1);
    waiter!.admit();
  }

  /** Seconds until about `ahead` requests have been served (at least 1). */
  private retryAfter(ahead: number): number {
    return Math.max(1, Math.ceil((ahead * this.meanMs) / this.limits.concurrent / 1000));
  }
}
