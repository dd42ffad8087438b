/**
 * Who may use the proxy's model now: at most `concurrent` requests at the model at once,
 * at most `queue` more waiting for it, and at most `perClient` of one client's in either
 * (a client is a remote address, as for the rate limit). Past its own share a client is
 * told 429; when the queue is full, 503; both with a Retry-After.
 *
 * A request's cost is the tokens its answer may take. A decision (a few numbers) is light;
 * a long free answer is heavy, and at most `heavy` of those are at the model at once (never
 * all places), so a decision never waits behind a model full of them, nor shares the cores
 * with many: on 2 cores, three heavy requests at once (700-token prompts) all outran the
 * 3.5 s timeout and the page got 1 decision in 16; one at a time, it got all 25 (2.1 a
 * second, against 2.8 alone: npm run bench -- --only llm-proxy). A freed place goes to the waiting
 * request whose client has the fewest at the model, then the cheapest, then the earliest;
 * a full queue sheds its costliest request for a cheaper newcomer. So a client that keeps
 * its share full cannot push the others back, nor can many clients asking long answers.
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
  /** Answers of at most this many tokens are light (a decision). */
  readonly lightTokens: number;
  /** Heavier requests at the model at once (at most `concurrent` less one, where it is over 1). */
  readonly heavy: number;
}

/**
 * The page's two teams decide at once (2 per client); the local engine has 4 sequences;
 * 8 waiting is two rounds of them, about 1 s of decisions on 2 cores; a compact decision's
 * answer is bounded at 16 tokens (DEFAULT_MAX_TOKENS).
 */
export const DEFAULT_GATE_LIMITS: GateLimits = { perClient: 2, concurrent: 4, queue: 8, lightTokens: 16, heavy: 1 };

export type Admission =
  | { readonly ok: true; release(): void }
  | { readonly ok: false; readonly status: 429 | 503; readonly retryAfterSeconds: number; readonly message: string }
  | { readonly ok: false; readonly status: 499; readonly message: string };

interface Waiter {
  readonly client: string;
  readonly cost: number;
  /** Arrival order, for ties. */
  readonly order: number;
  readonly admit: () => void;
  /** Turn it away: the queue is full and a cheaper request took its place. */
  readonly shed: () => void;
}

/** Weight of the latest request in the running mean of time at the model (for Retry-After). */
const MEAN_WEIGHT = 0.2;

export class AdmissionGate {
  private readonly running = new Map<string, number>();
  private readonly waiting: Waiter[] = [];
  private inFlight = 0;
  private heavyInFlight = 0;
  private arrivals = 0;
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

  private heavy(cost: number): boolean {
    return cost > this.limits.lightTokens;
  }

  /** Whether a request of `cost` may take a place now. */
  private fits(cost: number): boolean {
    const { concurrent } = this.limits;
    if (this.inFlight >= concurrent) return false;
    // Heavy requests leave one place for decisions (where there is more than one).
    return !this.heavy(cost) || this.heavyInFlight < Math.max(1, Math.min(this.limits.heavy, concurrent - 1));
  }

  /**
   * A place at the model for `client`'s request, whose answer may take `cost` tokens, or why
   * not. Waits where the model is busy and the queue has room; gives up (499) when `signal`
   * aborts while waiting. Call release() once the request is done with the model.
   */
  enter(client: string, cost: number, signal: AbortSignal): Promise<Admission> {
    const { perClient, queue } = this.limits;
    const own = (this.running.get(client) ?? 0) + this.waiting.filter((w) => w.client === client).length;
    if (own >= perClient) {
      return Promise.resolve({ ok: false, status: 429, retryAfterSeconds: this.retryAfter(1), message: `this client already has ${own} requests at the model or waiting (at most ${perClient})` });
    }
    if (signal.aborted) return Promise.resolve({ ok: false, status: 499, message: 'the request was abandoned' });
    if (this.fits(cost)) return Promise.resolve(this.admit(client, cost));
    const busy = (): Admission => ({
      ok: false,
      status: 503,
      retryAfterSeconds: this.retryAfter(this.waiting.length + 1),
      message: `the model is busy: ${this.inFlight} requests at it and ${this.waiting.length} waiting (at most ${queue})`,
    });
    if (this.waiting.length >= queue) {
      const costliest = this.waiting.reduce<Waiter | undefined>((worst, w) => (!worst || w.cost > worst.cost || (w.cost === worst.cost && w.order > worst.order) ? w : worst), undefined);
      if (!costliest || costliest.cost <= cost) return Promise.resolve(busy());
      costliest.shed();
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        client,
        cost,
        order: this.arrivals++,
        admit: () => {
          signal.removeEventListener('abort', leave);
          resolve(this.admit(client, cost));
        },
        shed: () => {
          signal.removeEventListener('abort', leave);
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          resolve(busy());
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

  private admit(client: string, cost: number): Admission {
    const heavy = this.heavy(cost);
    this.inFlight++;
    if (heavy) this.heavyInFlight++;
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
        if (heavy) this.heavyInFlight--;
        const left = (this.running.get(client) ?? 1) - 1;
        if (left > 0) this.running.set(client, left);
        else this.running.delete(client);
        this.next();
      },
    };
  }

  /** Give free places to the waiting requests whose clients have the fewest at the model, then the cheapest, then the earliest. */
  private next(): void {
    for (;;) {
      let best: Waiter | undefined;
      for (const w of this.waiting) {
        if (!this.fits(w.cost)) continue;
        if (!best) {
          best = w;
          continue;
        }
        const a = this.running.get(w.client) ?? 0;
        const b = this.running.get(best.client) ?? 0;
        if (a < b || (a === b && (w.cost < best.cost || (w.cost === best.cost && w.order < best.order)))) best = w;
      }
      if (!best) return;
      this.waiting.splice(this.waiting.indexOf(best), 1);
      best.admit();
    }
  }

  /** Seconds until about `ahead` requests have been served (at least 1). */
  private retryAfter(ahead: number): number {
    return Math.max(1, Math.ceil((ahead * this.meanMs) / this.limits.concurrent / 1000));
  }
}
