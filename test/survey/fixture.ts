/**
 * Test fixtures for studies:
 * - `publishedStudy`: a database with 15 simulated participants of a bt/llm/flat study whose
 *   forced choices are the published 9 (llm) / 5 (flat) / 1 (bt), whose human-likeness
 *   ratings average 2.8 for llm, and whose episodes give the published AI win rates
 *   (llm 23/90 = 25.6%, bt 12/90 = 13.3%, flat 1/90 = 1.1%);
 * - `humanReplay`: a real replay of a person (idle input) playing beside an AI teammate,
 *   as the study page records it.
 */
import { Match } from '../../src/match';
import type { MatchSummary, ReplayFile } from '../../src/match';
import type { GameConfig } from '../../src/sim';
import { type StudyConfigInput, type StudyRecord, StudyStore, createStudy } from '../../src/survey';
import { createHumanTeam } from '../../src/teams/human';
import { TEST_PLATFORM } from '../helpers/platform';

export const PUBLISHED_CHOICES: Record<string, number> = { llm: 9, flat: 5, bt: 1 };
export const PUBLISHED_AI_WINS: Record<string, number> = { llm: 23, bt: 12, flat: 1 };

/** Human-likeness ratings per team, participant by participant (llm's mean is the published 2.8). */
export const HUMANLIKE: Record<string, number[]> = {
  llm: [3, 3, 2, 3, 3, 2, 3, 4, 2, 3, 3, 2, 3, 3, 3],
  flat: [2, 3, 2, 2, 3, 1, 2, 3, 2, 2, 3, 2, 2, 2, 3],
  bt: [1, 2, 1, 2, 2, 1, 1, 2, 1, 1, 2, 1, 1, 2, 1],
};

/** The other four items: a fixed offset from human-likeness, clamped to 1..5. */
const OFFSETS: Record<string, Record<string, number>> = {
  challenge: { llm: 1, flat: -1, bt: 0 },
  skill: { llm: 1, flat: 1, bt: 1 },
  coordination: { llm: 1, flat: 0, bt: 2 },
  enjoyment: { llm: 1, flat: 0, bt: 1 },
};

const clamp = (v: number) => Math.max(1, Math.min(5, v));

export async function publishedStudy(path: string): Promise<{ store: StudyStore; study: StudyRecord; adminToken: string }> {
  const store = StudyStore.open(path);
  const { study, adminToken } = await createStudy(store, { id: 'published', title: 'Published counts', teams: ['bt', 'llm', 'flat'], episodesPerBlock: 6 }, TEST_PLATFORM);
  const choices = Object.entries(PUBLISHED_CHOICES).flatMap(([team, n]) => Array<string>(n).fill(team));
  const aiWinsLeft = { ...PUBLISHED_AI_WINS };
  for (let i = 0; i < 15; i++) {
    const { participant } = store.createParticipant(study, { PROLIFIC_PID: `pid-${i + 1}` }, 'fixture');
    store.markStep(participant.id, 'instructions');
    store.markStep(participant.id, 'practice', { skipped: true });
    participant.plan.order.forEach((team, block) => {
      for (let e = 0; e < 6; e++) {
        const aiWins = aiWinsLeft[team]! > 0;
        if (aiWins) aiWinsLeft[team]!--;
        store.addEpisode({
          studyId: study.id,
          participantId: participant.id,
          block,
          episode: e,
          opponent: team,
          teammate: 'bt-scripted',
          seed: i * 100 + block * 10 + e,
          outcome: aiWins ? 'red' : e % 3 === 0 ? 'draw' : 'blue',
          ticks: 3000,
          durationSeconds: 60,
          progressBlue: 0,
          progressRed: 0,
          humanAgents: [0],
          agentControllers: ['human', 'bt-scripted', team, team],
          summary: {},
          replay: '{}',
          replayOk: true,
        });
      }
      const human = HUMANLIKE[team]![i]!;
      store.addAnswers(participant.id, [
        { block, team, label: `Team ${block + 1}`, kind: 'likert', item: 'humanlike', valueNum: human, valueText: null },
        ...Object.entries(OFFSETS).map(([item, offsets]) => ({
          block,
          team,
          label: `Team ${block + 1}`,
          kind: 'likert' as const,
          item,
          valueNum: clamp(human + offsets[team]! + ((i + block) % 2)),
          valueText: null,
        })),
        { block, team, label: `Team ${block + 1}`, kind: 'open', item: 'behaviours', valueNum: null, valueText: i === 0 && team === 'bt' ? 'It <script>alert(1)</script> rushed | stood still' : `noticed ${team} ${i}` },
      ]);
    });
    const choice = choices[i]!;
    const position = participant.plan.order.indexOf(choice);
    store.addAnswers(participant.id, [
      { block: -1, team: choice, label: `Team ${position + 1}`, kind: 'choice', item: 'forced_choice', valueNum: position + 1, valueText: choice },
      { block: -1, team: choice, label: `Team ${position + 1}`, kind: 'reason', item: 'forced_choice_reason', valueNum: null, valueText: `reason ${i}` },
      { block: -1, team: null, label: null, kind: 'background', item: 'gaming', valueNum: 1 + (i % 5), valueText: ['Never', 'Less than once a month', 'A few times a month', 'A few times a week', 'Every day'][i % 5]! },
      { block: -1, team: null, label: null, kind: 'background', item: 'team_games', valueNum: 1, valueText: 'None' },
    ]);
    store.markCompleted(participant.id);
  }
  return { store, study, adminToken };
}

/** A play study of three scripted teams with one-second episodes (one per block) and a practice round: quick to play through. */
export function quickStudy(id: string): StudyConfigInput {
  return {
    id,
    teams: ['bt-scripted', 'heuristic', 'random'],
    episodesPerBlock: 1,
    episodeSeconds: 1,
    practice: { opponent: 'heuristic', episodeSeconds: 1 },
  };
}

/** An input source that does nothing: the person stands still. */
export const IDLE_INPUT = { read: () => undefined };

/** Play a full episode as the study page does (a person on blue slot 0 beside `teammate`). */
export async function humanReplay(opponent: string, seed: number, config: GameConfig, teammate = 'bt-scripted', humanSlots: number[] = [0]): Promise<ReplayFile> {
  return (await humanEpisode(opponent, seed, config, teammate, humanSlots)).replay;
}

/** humanReplay with the page's match summary, as the page sends both. */
export async function humanEpisode(
  opponent: string,
  seed: number,
  config: GameConfig,
  teammate = 'bt-scripted',
  humanSlots: number[] = [0],
): Promise<{ replay: ReplayFile; summary: MatchSummary }> {
  const match = await Match.create(
    { blue: 'human', red: opponent, seed, config }, { platform: TEST_PLATFORM, controllers: { blue: (ctx) => createHumanTeam(ctx, { teammate, humanSlots, input: IDLE_INPUT }) } },
  );
  while (!match.done) {
    const pending = match.advance();
    if (pending) await pending;
  }
  return { replay: match.replay(), summary: match.summary() };
}

/** A clock tests move by hand: a store opened with it stamps attempts with it, and the study checks episode times against it. */
export function manualClock(start = Date.parse('2026-03-02T09:00:00Z')): { now: () => Date; advance(seconds: number): void } {
  let t = start;
  return { now: () => new Date(t), advance: (seconds) => void (t += seconds * 1000) };
}
