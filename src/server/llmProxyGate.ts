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
 * Nor is a request let in that the model would answer only after its caller has stopped
 * waiting (the proxy's timeout): the gate keeps the mean time a request of each kind spends
 * at the model, estimates when a newcomer would be answered (its wait behind those of its
 * kind at the model and waiting, then its own time there), and past the timeout answers 503
 * at once, with a Retry-After of about when a place frees. A waiting request whose time left
 * has become shorter than its kind's mean (and two mean deviations) when a place frees is
 * refused then, not started. Only answers, and calls cut off at the timeout, are measured.
 * Thirty clients asking 700-token prompts (3.5 s or more each with the model to itself, one
 * thread, against the timeout of 3.5 s; beside the page's decisions a third of the engine's
 * steps) were let into the queue, and 2.4-2.5 a second timed out with 504 while none was
 * answered: the model's work went to callers that had left, and the page, beside them, got
 * 0-7% of its decisions on a loaded machine. Refused at once, they time out once in 14 s,
 * and the page gets all its decisions (npm run bench -- --only llm-proxy). A request that
 * finds nothing at the model is let in whatever its estimate: no one waits behind it, and
 * its time keeps the measure current.
 *
 * Without the gate, one client's 30 requests sat at the model (each held past its caller's
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
  /**
   * release(measured): the request is done with the model; `measured` (default true) says its
   * time there tells what the next one will take: an answer, or a call cut off at its timeout
   * (a floor of what it would have taken). A call that failed at once (the model server's
   * error, the caller gone) would drag the mean down and let in requests that cannot finish.
   */
  | { readonly ok: true; release(measured?: boolean): void }
  | { readonly ok: false; readonly status: 429 | 503; readonly retryAfterSeconds: number; readonly message: string }
  | { readonly ok: false; readonly status: 499; readonly message: string };

/** A decision (light) or a longer answer (heavy): each kind has its own places and its own time at the model. */
type Kind = 'light' | 'heavy';

interface Waiter {
  readonly client: string;
  readonly cost: number;
  readonly kind: Kind;
  /** When its caller stops waiting for the answer (the gate's clock). */
  readonly deadline: number;
  /** Arrival order, for ties. */
  readonly order: number;
  readonly admit: () => void;
  /** Turn it away with `refusal` (the queue is full and a cheaper request took its place, or it can no longer be answered in time). */
  readonly refuse: (refusal: Admission) => void;
}

/** Weight of the latest request in the running means of time at the model, and of its spread. */
const MEAN_WEIGHT = 0.2;
const SPREAD_WEIGHT = 0.25;
/**
 * A request is let in where it would finish within its time at its kind's mean plus this many
 * mean deviations (TCP's retransmission timer takes the same estimate, RFC 6298): with the
 * mean alone, 30 clients asking decisions had 0.64 a second of theirs let in and timed out
 * (npm run bench -- --only llm-proxy, "30 clients, decisions"), each one near the mean.
 */
const SPREADS_ALLOWED = 2;

export class AdmissionGate {
  private readonly running = new Map<string, number>();
  private readonly waiting: Waiter[] = [];
  private inFlight = 0;
  private heavyInFlight = 0;
  private arrivals = 0;
  /**
   * Running means of ms a request spends at the model, by kind (a long answer takes many
   * decisions' time). Half a second until a kind's first request is measured, which then
   * replaces it: a guess kept in the mean would let in requests that cannot finish.
   */
  private readonly meanMs: Record<Kind, number> = { light: 500, heavy: 500 };
  /** Running mean deviations from those means (0 until a kind's second measure). */
  private readonly spreadMs: Record<Kind, number> = { light: 0, heavy: 0 };
  private readonly measured: Record<Kind, boolean> = { light: false, heavy: false };

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

  private kind(cost: number): Kind {
    return cost > this.limits.lightTokens ? 'heavy' : 'light';
  }

  /** Places requests of `kind` may hold at once: heavy ones leave one for decisions (where there is more than one). */
  private places(kind: Kind): number {
    const { concurrent } = this.limits;
    return kind === 'light' ? concurrent : Math.max(1, Math.min(this.limits.heavy, concurrent - 1));
  }

  /** Whether a request of `kind` may take a place now. */
  private fits(kind: Kind): boolean {
    return this.inFlight < this.limits.concurrent && (kind === 'light' || this.heavyInFlight < this.places('heavy'));
  }

  /**
   * About how many ms a request of `kind` arriving now waits for a place: none where one is
   * free, else until the requests of its kind at the model and waiting before it have had
   * theirs, `places` at a time, each taking its kind's mean time at the model.
   */
  private waitMs(kind: Kind): number {
    if (this.fits(kind)) return 0;
    const places = this.places(kind);
    const ahead = (kind === 'light' ? this.inFlight : this.heavyInFlight) + this.waiting.filter((w) => w.kind === kind).length;
    return (Math.max(1, ahead - places + 1) * this.meanMs[kind]) / places;
  }

  /** Whether a request of `kind` that has a place in `waitMs` would be answered by `deadline`, allowing for a slow one. */
  private inTime(kind: Kind, waitMs: number, deadline: number): boolean {
    return this.now() + waitMs + this.meanMs[kind] + SPREADS_ALLOWED * this.spreadMs[kind] <= deadline;
  }

  /**
   * A place at the model for `client`'s request, whose answer may take `cost` tokens and whose
   * caller waits `timeoutMs` for it, or why not. Refused at once (503) where it would not be
   * answered in time; else waits where the model is busy and the queue has room; gives up
   * (499) when `signal` aborts while waiting. Call release() once the request is done with the model.
   */
  enter(client: string, cost: number, signal: AbortSignal, timeoutMs = Number.POSITIVE_INFINITY): Promise<Admission> {
    const { perClient, queue } = this.limits;
    const kind = this.kind(cost);
    const own = (this.running.get(client) ?? 0) + this.waiting.filter((w) => w.client === client).length;
    if (own >= perClient) {
      return Promise.resolve({ ok: false, status: 429, retryAfterSeconds: retryAfterSeconds(this.meanMs[kind] / this.places(kind)), message: `this client already has ${own} requests at the model or waiting (at most ${perClient})` });
    }
    if (signal.aborted) return Promise.resolve({ ok: false, status: 499, message: 'the request was abandoned' });
    const waitMs = this.waitMs(kind);
    // Where nothing is at the model a request is tried whatever its estimate: no one waits
    // behind it, and its time keeps the measure current (else a measure past every timeout,
    // never measured again, would refuse its kind for good).
    if (this.inFlight > 0 && !this.inTime(kind, waitMs, this.now() + timeoutMs)) return Promise.resolve(this.late(kind, waitMs, timeoutMs));
    if (waitMs === 0) return Promise.resolve(this.admit(client, kind));
    if (this.waiting.length >= queue) {
      const costliest = this.waiting.reduce<Waiter | undefined>((worst, w) => (!worst || w.cost > worst.cost || (w.cost === worst.cost && w.order > worst.order) ? w : worst), undefined);
      if (!costliest || costliest.cost <= cost) return Promise.resolve(this.busy(kind));
      this.remove(costliest);
      costliest.refuse(this.busy(costliest.kind));
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        client,
        cost,
        kind,
        deadline: this.now() + timeoutMs,
        order: this.arrivals++,
        admit: () => {
          signal.removeEventListener('abort', leave);
          resolve(this.admit(client, kind));
        },
        refuse: (refusal) => {
          signal.removeEventListener('abort', leave);
          resolve(refusal);
        },
      };
      const leave = () => {
        this.remove(waiter);
        resolve({ ok: false, status: 499, message: 'the request was abandoned while it waited for the model' });
      };
      signal.addEventListener('abort', leave, { once: true });
      this.waiting.push(waiter);
    });
  }

  private remove(waiter: Waiter): void {
    const at = this.waiting.indexOf(waiter);
    if (at >= 0) this.waiting.splice(at, 1);
  }

  /** The queue is full: 503, to come back once about those before a request of `kind` have had their places. */
  private busy(kind: Kind): Admission {
    return {
      ok: false,
      status: 503,
      retryAfterSeconds: retryAfterSeconds(this.waitMs(kind)),
      message: `the model is busy: ${this.inFlight} requests at it and ${this.waiting.length} waiting (at most ${this.limits.queue})`,
    };
  }

  /** A request of `kind` would be answered after its caller's `leftMs`: 503, to come back once a place is about to free. */
  private late(kind: Kind, waitMs: number, leftMs: number): Admission {
    const atModel = this.meanMs[kind];
    return {
      ok: false,
      status: 503,
      retryAfterSeconds: retryAfterSeconds(Math.max(waitMs, atModel)),
      message: `the model would not answer in time: about ${Math.round(waitMs)} ms for a place and ${Math.round(atModel)} ms at the model, past the ${Math.round(leftMs)} ms this request has`,
    };
  }

  /** Fold a request's `ms` at the model into its kind's mean and spread. */
  private measure(kind: Kind, ms: number): void {
    if (this.measured[kind]) {
      this.spreadMs[kind] += SPREAD_WEIGHT * (Math.abs(ms - this.meanMs[kind]) - this.spreadMs[kind]);
      this.meanMs[kind] += MEAN_WEIGHT * (ms - this.meanMs[kind]);
    } else this.meanMs[kind] = ms;
    this.measured[kind] = true;
  }

  private admit(client: string, kind: Kind): Admission {
    this.inFlight++;
    if (kind === 'heavy') this.heavyInFlight++;
    this.running.set(client, (this.running.get(client) ?? 0) + 1);
    const started = this.now();
    let released = false;
    return {
      ok: true,
      release: (measured = true) => {
        if (released) return;
        released = true;
        if (measured) this.measure(kind, this.now() - started);
        this.inFlight--;
        if (kind === 'heavy') this.heavyInFlight--;
        const left = (this.running.get(client) ?? 1) - 1;
        if (left > 0) this.running.set(client, left);
        else this.running.delete(client);
        this.next();
      },
    };
  }

  /**
   * Give free places to the waiting requests whose clients have the fewest at the model, then
   * the cheapest, then the earliest; one that would no longer be answered in time is refused
   * rather than started.
   */
  private next(): void {
    for (;;) {
      let best: Waiter | undefined;
      for (const w of this.waiting) {
        if (!this.fits(w.kind)) continue;
        if (!best) {
          best = w;
          continue;
        }
        const a = this.running.get(w.client) ?? 0;
        const b = this.running.get(best.client) ?? 0;
        if (a < b || (a === b && (w.cost < best.cost || (w.cost === best.cost && w.order < best.order)))) best = w;
      }
      if (!best) return;
      this.remove(best);
      if (this.inTime(best.kind, 0, best.deadline)) best.admit();
      else best.refuse(this.late(best.kind, 0, best.deadline - this.now()));
    }
  }
}

/** Whole seconds to wait, at least 1. */
function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
