/**
 * Whose evaluation the local engine runs next. The engine evaluates one step at a time (a
 * prompt piece, a number read, a generated answer: never two sequences in one batch, whose
 * sums would depend on each other, localEngine.ts). Between steps the turn goes first to the
 * requests served fewer than SHORT_REQUEST_TOKENS so far (decisions: about 70 tokens in two
 * or three steps), then to the longer ones, each group in the order its requests began. So a
 * decision waits for at most the step in progress and the short start of requests that
 * began before it, however long they are; decisions among themselves, and long requests
 * among themselves, run first come first served (taking turns among equals would only make
 * each finish later). When a request held the engine for its whole run, a decision waited
 * for every step of a 700-token prompt and its 64-token answer, and the page's decisions ran
 * about 4x slower beside one client's long requests. Long requests go on in the gaps between
 * decisions, and are never starved by them: once short steps have taken SHORT_REQUEST_TOKENS
 * since the last long step, a waiting long request has the next turn (so decisions asked
 * back to back run at least 2/3 of the engine's tokens, at most 1.5x slower, and the long
 * requests get the rest). The engine never idles while anything waits.
 *
 * The next turn is chosen once the step's caller has had its continuation run (setImmediate),
 * so a request asking its next step at once is weighed with the others, not passed over
 * because its step was not queued yet.
 */
import { ChatError } from './chat';

/**
 * Tokens a request may be served before it counts as long: a decision's situation and reads
 * (about 70 tokens; a first decision of a sequence evaluates its system prompt too, about
 * 600, and then waits behind the decisions that began after it). A long prompt's first two
 * 128-token pieces fit within it.
 */
export const SHORT_REQUEST_TOKENS = 256;

/** A request's account with the engine. */
export interface TurnTaker {
  /** Tokens of its steps evaluated so far. */
  served: number;
  /** When its request began (a count: earlier is smaller). */
  readonly begun: number;
}

interface WaitingTurn {
  readonly taker: TurnTaker;
  /** Arrival order, for ties. */
  readonly order: number;
  readonly start: () => void;
}

/** Whether a request has had more than a decision's worth of the engine. */
const isLong = (taker: TurnTaker) => taker.served >= SHORT_REQUEST_TOKENS;

const abortedError = () => new ChatError('aborted', 'the call was aborted');

export class EvaluationTurns {
  private readonly waiting: WaitingTurn[] = [];
  private running = false;
  /** Tokens of short requests' steps since a long request's step last ran. */
  private shortSinceLong = 0;
  /** A choice of the next turn is scheduled. */
  private choosing = false;
  private arrivals = 0;

  /** Steps waiting for their turn. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Run `work` (one step of `taker`'s request, costing `cost` tokens) in its turn, alone;
   * rejects without running it when `signal` aborts while it waits.
   */
  async take<T>(taker: TurnTaker, cost: number, work: () => Promise<T>, signal: AbortSignal): Promise<T> {
    await this.enter(taker, signal);
    const long = isLong(taker);
    try {
      return await work();
    } finally {
      this.shortSinceLong = long ? 0 : this.shortSinceLong + cost;
      taker.served += cost;
      this.running = false;
      this.scheduleNext();
    }
  }

  private enter(taker: TurnTaker, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(abortedError());
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const at = this.waiting.indexOf(turn);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(abortedError());
      };
      const turn: WaitingTurn = {
        taker,
        order: this.arrivals++,
        start: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(turn);
      this.scheduleNext();
    });
  }

  private scheduleNext(): void {
    if (this.running || this.choosing || this.waiting.length === 0) return;
    this.choosing = true;
    setImmediate(() => {
      this.choosing = false;
      this.startNext();
    });
  }

  /**
   * Start the waiting step of the earliest short request, else of the earliest long one (ties:
   * the step that came first); a long one first where short steps have had their share.
   */
  private startNext(): void {
    if (this.running || this.waiting.length === 0) return;
    const longFirst = this.shortSinceLong >= SHORT_REQUEST_TOKENS;
    const rank = (w: WaitingTurn) => (isLong(w.taker) === longFirst ? 0 : 1);
    let best = 0;
    for (let i = 1; i < this.waiting.length; i++) {
      const w = this.waiting[i]!;
      const b = this.waiting[best]!;
      const before = rank(w) - rank(b) || w.taker.begun - b.taker.begun || w.order - b.order;
      if (before < 0) best = i;
    }
    const [turn] = this.waiting.splice(best, 1);
    this.running = true;
    turn!.start();
  }
}
