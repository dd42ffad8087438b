/**
 * Where a participant stands, derived from what is stored (never from the page): a reload,
 * another tab or a lost answer all resume at the first thing not yet done.
 *
 * Play study: instructions -> practice (when enabled) -> for each block in the
 * participant's order: play its episodes, then rate it -> forced choice -> background ->
 * done. Observe study: instructions -> each clip (watch, then judge every agent) ->
 * background -> done.
 */
import { deriveSeed } from '../sim';
import { type StudyConfig, teamColour, teamLabel } from './config';
import type { AnswerRecord, JudgementRecord, ParticipantRecord, StoredEpisode } from './store';

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
export interface SessionState {
  /** The participant's number in the study (not the database id). */
  readonly participant: number;
  readonly step: Step;
}

export interface ParticipantProgress {
  readonly participant: ParticipantRecord;
  readonly episodes: readonly StoredEpisode[];
  readonly answers: readonly AnswerRecord[];
  readonly judgements: readonly JudgementRecord[];
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

export function currentStep(config: StudyConfig, studyId: string, progress: ParticipantProgress): Step {
  const { participant, episodes, answers, judgements } = progress;
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
    };
  }
  const order = participant.plan.order;
  for (let block = 0; block < order.length; block++) {
    const played = episodes.filter((e) => e.block === block).length;
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
      };
    }
    const rated = config.likert.every((q) => answers.some((a) => a.kind === 'likert' && a.block === block && a.item === q.id));
    if (!rated) return { kind: 'rate', block, badge: badgeFor(block) };
  }
  if (!answers.some((a) => a.kind === 'choice')) return { kind: 'choice', options: order.map((_, i) => badgeFor(i)) };
  return background() ? done() : { kind: 'background' };
}
