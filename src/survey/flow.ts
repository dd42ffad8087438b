/**
 * Where a participant stands, derived from what is stored (never from the page): a reload,
 * another tab or a lost answer all resume at the first thing not yet done.
 *
 * Play study: instructions -> practice (when enabled) -> for each block in the
 * participant's order: play its episodes, then rate it -> forced choice -> background ->
 * done. Observe study: instructions -> each clip (watch, then judge every agent) ->
 * background -> done.
 *
 * An episode slot is used up when its episode is stored, or when it was left before its
 * end more often than the study allows restarts (the attempts say so); the next slot then
 * comes up, so a reload never lets a participant redo an episode without limit.
 */
import { deriveSeed } from '../sim';
import { type StudyConfig, teamColour, teamLabel } from './config';
import type { AnswerRecord, AttemptRecord, JudgementRecord, ParticipantRecord, StoredEpisode } from './store';

/** A team as the participant knows it. */
export interface TeamBadge {
  readonly label: string;
  readonly colour: string;
}

/** The settings of one episode the page plays. */
export interface EpisodePlan {
  /** The block (position in the participant's order), -1 for practice. */
  readonly block: number;
  readonly episode: number;
  readonly episodes: number;
  /** Team id the page builds for red (the page never shows it). */
  readonly opponent: string;
  /** AI team beside the participant, or "person". */
  readonly teammate: string;
  readonly seed: number;
  readonly episodeSeconds: number | null;
  readonly badge: TeamBadge;
  /** Times this episode was left before its end, and how many restarts are allowed (null: any, in practice). */
  readonly restarts: { readonly used: number; readonly allowed: number | null };
  /** Starts of this episode so far: once started, the number of the attempt under way. */
  readonly attempt: number;
}

export type Step =
  | { readonly kind: 'instructions' }
  | ({ readonly kind: 'practice' } & EpisodePlan)
  | ({ readonly kind: 'play' } & EpisodePlan)
  | { readonly kind: 'rate'; readonly block: number; readonly badge: TeamBadge }
  | { readonly kind: 'choice'; readonly options: readonly TeamBadge[] }
  | { readonly kind: 'clip'; readonly clip: number; readonly clips: number; readonly episodeId: number }
  | { readonly kind: 'background' }
  | { readonly kind: 'done'; readonly code: string | null; readonly redirectUrl: string | null; readonly message: string };

/** Where a participant's session stands: what the study API answers and the page renders. */
export interface ParticipantState {
  /** The participant's number in the study (not the database id). */
  readonly participant: number;
  readonly step: Step;
  /** Set when the last episode started was left too often and is now skipped: what to tell the participant. */
  readonly notice?: string;
}

export interface ParticipantProgress {
  readonly participant: ParticipantRecord;
  readonly episodes: readonly StoredEpisode[];
  readonly answers: readonly AnswerRecord[];
  readonly judgements: readonly JudgementRecord[];
  readonly attempts: readonly AttemptRecord[];
}

export const PRACTICE_BLOCK = -1;
/** Block number of bot-versus-bot clips made for observe studies. */
export const BOT_CLIP_BLOCK = -2;
/** Block number of answers given once per study (forced choice, background). */
export const STUDY_BLOCK = -1;

export function badgeFor(position: number): TeamBadge {
  return { label: teamLabel(position), colour: teamColour(position) };
}

export const PRACTICE_BADGE: TeamBadge = { label: 'Practice team', colour: '#8d97ab' };

/**
 * The seed of an episode: the same episode index gives the same arena and zone spots in
 * every block of one participant (so the teams are compared on the same maps), and
 * different participants get different maps.
 */
export function episodeSeed(studyId: string, participantNumber: number, block: number, episode: number): number {
  return deriveSeed(0x5eed, studyId, participantNumber, block === PRACTICE_BLOCK ? 'practice' : 'block', episode);
}

/** Times each slot of a block was left before its end, by episode index. */
function abandonedIn(attempts: readonly AttemptRecord[], block: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const a of attempts) if (a.block === block && a.status === 'abandoned') out.set(a.episode, (out.get(a.episode) ?? 0) + 1);
  return out;
}

function startsOf(attempts: readonly AttemptRecord[], block: number, episode: number): number {
  return attempts.filter((a) => a.block === block && a.episode === episode).length;
}

/** Slots of a block used up: stored, or left more often than restarts allow. */
function usedSlots(config: StudyConfig, progress: ParticipantProgress, block: number): number {
  const stored = new Set(progress.episodes.filter((e) => e.block === block).map((e) => e.episode));
  let skipped = 0;
  for (const [episode, left] of abandonedIn(progress.attempts, block)) if (!stored.has(episode) && left > config.restartsPerEpisode) skipped++;
  return stored.size + skipped;
}

export function currentStep(config: StudyConfig, studyId: string, progress: ParticipantProgress): Step {
  const { participant, answers, judgements } = progress;
  if (!participant.instructionsAt) return { kind: 'instructions' };
  const background = () => config.background.every((q) => answers.some((a) => a.kind === 'background' && a.item === q.id));
  const done = (): Step => ({
    kind: 'done',
    code: config.completion.code ?? null,
    redirectUrl: config.completion.redirectUrl ?? null,
    message: config.completion.message,
  });
  const teammate = config.teammate;

  if (config.kind === 'observe') {
    const clips = participant.plan.clips ?? [];
    for (let i = 0; i < clips.length; i++) {
      if (!judgements.some((j) => j.episodeId === clips[i])) return { kind: 'clip', clip: i, clips: clips.length, episodeId: clips[i]! };
    }
    return background() ? done() : { kind: 'background' };
  }

  if (config.practice.enabled && !participant.practiceAt) {
    return {
      kind: 'practice',
      block: PRACTICE_BLOCK,
      episode: 0,
      episodes: 1,
      opponent: config.practice.opponent,
      teammate,
      seed: episodeSeed(studyId, participant.number, PRACTICE_BLOCK, 0),
      episodeSeconds: config.practice.episodeSeconds,
      badge: PRACTICE_BADGE,
      restarts: { used: abandonedIn(progress.attempts, PRACTICE_BLOCK).get(0) ?? 0, allowed: null },
      attempt: startsOf(progress.attempts, PRACTICE_BLOCK, 0),
    };
  }
  const order = participant.plan.order;
  for (let block = 0; block < order.length; block++) {
    const played = usedSlots(config, progress, block);
    if (played < config.episodesPerBlock) {
      return {
        kind: 'play',
        block,
        episode: played,
        episodes: config.episodesPerBlock,
        opponent: order[block]!,
        teammate,
        seed: episodeSeed(studyId, participant.number, block, played),
        episodeSeconds: config.episodeSeconds ?? null,
        badge: badgeFor(block),
        restarts: { used: abandonedIn(progress.attempts, block).get(played) ?? 0, allowed: config.restartsPerEpisode },
        attempt: startsOf(progress.attempts, block, played),
      };
    }
    const rated = config.likert.every((q) => answers.some((a) => a.kind === 'likert' && a.block === block && a.item === q.id));
    if (!rated) return { kind: 'rate', block, badge: badgeFor(block) };
  }
  if (!answers.some((a) => a.kind === 'choice')) return { kind: 'choice', options: order.map((_, i) => badgeFor(i)) };
  return background() ? done() : { kind: 'background' };
}
