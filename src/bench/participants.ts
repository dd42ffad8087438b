/**
 * Participants playing llm at once against one model: each asks its strategist's decisions
 * on a fixed schedule at the strategist's rate (one request per decision, never faster,
 * whatever the answers do), gives each up at the strategist's timeout, and what counts is
 * the share answered in time. Unlike the proxy's floods, which ask again as soon as they are
 * answered, the load here is the one a study puts on its server: participants times the rate.
 * The asking and the clock are passed in, so a test can run the schedule on a fake clock.
 */
import { type Clock, SYSTEM_CLOCK } from '../llm';

/** What one decision got: answered (200) within the timeout, or not (refused, failed, given up). */
export type AskDecision = (participant: number, decision: number, timeoutMs: number) => Promise<boolean>;

/** What the schedule reads of a clock: the product's (llm/clock.ts), or a test's. */
export type ParticipantClock = Pick<Clock, 'now' | 'sleep'>;

export interface ParticipantsRun {
  readonly participants: number;
  /** Decisions per second per participant (the strategist's rateHz). */
  readonly rateHz: number;
  /** Each decision is given up after this (the strategist's timeoutMs). */
  readonly timeoutMs: number;
  /** How long decisions are asked; those asked by then are awaited. */
  readonly ms: number;
  readonly ask: AskDecision;
  readonly clock?: ParticipantClock;
}

export interface ParticipantsServed {
  readonly asked: number;
  readonly answered: number;
  /** answered / asked, 0 to 1. */
  readonly share: number;
}

/**
 * Run `participants` at once for `ms`. Participant p's decisions fall due every 1/rateHz s,
 * its first at p/participants of a period (pages do not start in step, and staggering them
 * evenly keeps the load as smooth as it can be: the figure is the best case). A decision is
 * asked when due even while earlier ones are out: a refused one (the page would back off for
 * its Retry-After, losing those decisions as well) counts as unanswered.
 */
export async function runParticipants(run: ParticipantsRun): Promise<ParticipantsServed> {
  const clock = run.clock ?? SYSTEM_CLOCK;
  const period = 1000 / run.rateHz;
  const start = clock.now();
  const end = start + run.ms;
  let asked = 0;
  let answered = 0;
  await Promise.all(
    Array.from({ length: run.participants }, async (_, p) => {
      const outcomes: Promise<void>[] = [];
      for (let k = 0; ; k++) {
        const due = start + ((p / run.participants) + k) * period;
        if (due >= end) break;
        const wait = due - clock.now();
        if (wait > 0) await clock.sleep(wait);
        asked++;
        outcomes.push(run.ask(p, k, run.timeoutMs).then((ok) => void (ok && answered++)));
      }
      await Promise.all(outcomes);
    }),
  );
  return { asked, answered, share: asked > 0 ? answered / asked : 0 };
}

/** The participant counts tried, in order: 1, 2, 3, 4, then every second up to `most`. */
export function participantCounts(most: number): number[] {
  const counts: number[] = [];
  for (let n = 1; n <= most; n = n < 4 ? n + 1 : n + 2) counts.push(n);
  return counts;
}

export interface ServedSearch<Served extends ParticipantsServed = ParticipantsServed> {
  /** Each count tried, in order, with its share. */
  readonly tried: readonly { readonly participants: number; readonly served: Served }[];
  /** The largest count tried whose share reached `atLeast`; 0 where none did. */
  readonly served: number;
}

/** Try participantCounts(most) in turn, stopping after the first whose share falls below `atLeast` (0 to 1). */
export async function participantsServed<Served extends ParticipantsServed>(
  shareOf: (participants: number) => Promise<Served>,
  atLeast: number,
  most: number,
): Promise<ServedSearch<Served>> {
  const tried: { participants: number; served: Served }[] = [];
  let served = 0;
  for (const participants of participantCounts(most)) {
    const result = await shareOf(participants);
    tried.push({ participants, served: result });
    if (result.share < atLeast) break;
    served = participants;
  }
  return { tried, served };
}
