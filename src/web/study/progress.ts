/**
 * How far a participant is through the study, for the progress bar: the steps of the
 * protocol counted in order (instructions, practice, each episode and each block's
 * questions, the final questions; or each clip of an observe study), with the current
 * step's position among them. Skipped episodes count as done: the index says where the
 * participant stands.
 */
import type { PublicStudy, Step } from './api';

export interface StudyProgress {
  readonly done: number;
  readonly total: number;
}

export function studyProgress(study: PublicStudy, step: Step | null): StudyProgress {
  const practice = study.kind === 'play' && study.practice ? 1 : 0;
  const perBlock = study.episodesPerBlock + 1;
  const total = study.kind === 'observe' ? 1 + study.clips + 1 : 1 + practice + study.blocks * perBlock + 2;
  if (!step) return { done: 0, total };
  switch (step.kind) {
    case 'instructions':
      return { done: 0, total };
    case 'practice':
      return { done: 1, total };
    case 'play':
      return { done: 1 + practice + step.block * perBlock + step.episode, total };
    case 'rate':
      return { done: 1 + practice + step.block * perBlock + study.episodesPerBlock, total };
    case 'clip':
      return { done: 1 + step.clip, total };
    case 'choice':
      return { done: total - 2, total };
    case 'background':
      return { done: total - 1, total };
    case 'done':
      return { done: total, total };
  }
}
