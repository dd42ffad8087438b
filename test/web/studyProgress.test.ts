import { describe, expect, it } from 'vitest';
import { parseStudyConfig, publicStudy } from '../../src/survey/config';
import type { Step } from '../../src/survey/flow';
import { studyProgress } from '../../src/web/study/progress';

const badge = { label: 'Team 1', colour: '#e0a526' };
const episode = (block: number, episode: number, kind: 'play' | 'practice' = 'play'): Step => ({
  kind,
  block,
  episode,
  episodes: 2,
  opponent: 'bt',
  teammate: 'bt-scripted',
  seed: 1,
  episodeSeconds: null,
  badge,
  restarts: { used: 0, allowed: 1 },
  attempt: 0,
});

describe('the study progress bar', () => {
  it('counts instructions, practice, every episode and block questions, and the final questions', () => {
    const study = publicStudy('s', parseStudyConfig({ teams: ['bt', 'flat', 'random'], episodesPerBlock: 2 }));
    // 1 instructions + 1 practice + 3 blocks x (2 episodes + ratings) + choice + background
    const total = 1 + 1 + 3 * 3 + 2;
    const at = (step: Step | null) => studyProgress(study, step);
    expect(at(null)).toEqual({ done: 0, total });
    expect(at({ kind: 'instructions' }).done).toBe(0);
    expect(at(episode(-1, 0, 'practice')).done).toBe(1);
    expect(at(episode(0, 0)).done).toBe(2);
    expect(at(episode(0, 1)).done).toBe(3);
    expect(at({ kind: 'rate', block: 0, badge }).done).toBe(4);
    expect(at(episode(2, 1)).done).toBe(9);
    expect(at({ kind: 'rate', block: 2, badge }).done).toBe(10);
    expect(at({ kind: 'choice', options: [badge] }).done).toBe(11);
    expect(at({ kind: 'background' }).done).toBe(12);
    expect(at({ kind: 'done', code: null, redirectUrl: null, message: '' })).toEqual({ done: total, total });
  });

  it('leaves out practice when there is none, and counts clips in an observe study', () => {
    const noPractice = publicStudy('s', parseStudyConfig({ teams: ['bt', 'flat'], episodesPerBlock: 1, practice: { enabled: false } }));
    expect(studyProgress(noPractice, episode(0, 0))).toEqual({ done: 1, total: 1 + 2 * 2 + 2 });
    const observe = publicStudy('o', parseStudyConfig({ kind: 'observe', observe: { clips: 4 } }));
    expect(studyProgress(observe, { kind: 'clip', clip: 2, clips: 4, episodeId: 9 })).toEqual({ done: 3, total: 6 });
    expect(studyProgress(observe, { kind: 'background' })).toEqual({ done: 5, total: 6 });
  });
});
