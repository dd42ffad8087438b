/**
 * The one plural rule every message, page and report uses: "1 episode per block", never
 * "1 episodes per block".
 */
import { describe, expect, it } from 'vitest';
import { countOf } from '../../src/sim';
import { analyzeStudy, studyReportMarkdown } from '../../src/survey';
import { countsLine } from '../../src/web/study/admin';

describe('countOf', () => {
  it('takes the singular for exactly one and the plural otherwise', () => {
    expect([0, 1, 2].map((n) => countOf(n, 'episode'))).toEqual(['0 episodes', '1 episode', '2 episodes']);
    expect(countOf(1, 'match', 'matches')).toBe('1 match');
    expect(countOf(3, 'match', 'matches')).toBe('3 matches');
  });

  it("the admin page's counts: singular for one, and judgements only where observers make them", () => {
    const counts = { participants: 1, completed: 1, episodes: 1, restarts: 1, unverified: 0, answers: 1, judgements: 0 };
    expect(countsLine('play', counts)).toBe('1 started · 1 completed · 1 episode · 1 restart · 0 not verified · 1 answer');
    expect(countsLine('observe', { ...counts, judgements: 1 })).toMatch(/ · 1 judgement$/);
  });

  it("the study report's intro says 1 episode per block", () => {
    const data = { study: { id: 's', title: 'One episode', kind: 'play', createdAt: '2026-01-01', config: { kind: 'play', teams: ['a', 'b'], episodesPerBlock: 1, likert: [], open: [], background: [] } }, participants: [], answers: [], episodes: [], judgements: [] };
    const md = studyReportMarkdown(analyzeStudy(data as unknown as Parameters<typeof analyzeStudy>[0]));
    expect(md).toContain('1 episode per block');
    expect(md).not.toContain('1 episodes');
  });
});
