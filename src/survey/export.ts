/**
 * Exporting a study: JSON (everything, replays on request) and CSV tables (answers in long
 * format, participants, episodes, judgements, attempts: every start of an episode, with
 * the ones left before their end). An episode whose replay did not verify is exported
 * like any other, with replay_ok 0, its first problem and the tick by which its
 * re-simulation had parted from the recorded match. Free text is exported exactly as typed; in
 * CSV, text cells that a spreadsheet would run as a formula (starting with = + - @, tab or
 * carriage return) get a leading apostrophe.
 *
 * In the episodes table, agents are named by their ids in the match (0 and 1 blue, 2 and 3
 * red; the judgements table's `agent` too): `human_agent_ids` lists the agents people played
 * ("0", or "0 1" with a second person; empty for bot clips), and `agent_controllers` who
 * played each agent, in id order.
 */
import { type CsvValue, toCsv } from '../report/csv';
import { STUDY_BLOCK } from './flow';
import type { StudyData, StudyStore } from './store';

export const CSV_TABLES = ['answers', 'participants', 'episodes', 'judgements', 'attempts'] as const;
export type CsvTable = (typeof CSV_TABLES)[number];

const csv = (header: string[], rows: unknown[][], textColumns?: ReadonlySet<string>) => toCsv(header, rows as CsvValue[][], textColumns);

const EXTERNAL = ['PROLIFIC_PID', 'STUDY_ID', 'SESSION_ID', 'workerId', 'assignmentId', 'hitId'];

export function studyCsv(data: StudyData, table: CsvTable): string {
  const byId = new Map(data.participants.map((p) => [p.id, p]));
  const number = (id: number | null) => (id === null ? null : (byId.get(id)?.number ?? null));
  switch (table) {
    case 'answers':
      return csv(
        ['study', 'participant', 'block', 'block_position', 'team', 'label', 'kind', 'item', 'value', 'text', 'created_at'],
        data.answers.map((a) => [
          data.study.id,
          number(a.participantId),
          a.block === STUDY_BLOCK ? '' : a.block,
          a.block === STUDY_BLOCK ? '' : a.block + 1,
          a.team,
          a.label,
          a.kind,
          a.item,
          a.valueNum,
          a.valueText,
          a.createdAt,
        ]),
        new Set(['text']),
      );
    case 'participants':
      return csv(
        ['study', 'participant', 'order_row', 'block_order', ...EXTERNAL, 'user_agent', 'started_at', 'consented_at', 'instructions_at', 'practice_at', 'practice_skipped', 'updated_at', 'completed_at'],
        data.participants.map((p) => [
          data.study.id,
          p.number,
          p.orderRow,
          p.plan.order.join(' '),
          ...EXTERNAL.map((k) => p.external[k] ?? ''),
          p.userAgent,
          p.startedAt,
          p.consentedAt,
          p.instructionsAt,
          p.practiceAt,
          p.practiceSkipped ? 1 : 0,
          p.updatedAt,
          p.completedAt,
        ]),
        new Set(['user_agent', ...EXTERNAL]),
      );
    case 'episodes':
      return csv(
        ['study', 'episode_id', 'participant', 'block', 'episode', 'opponent', 'teammate', 'seed', 'outcome', 'ai_won', 'ticks', 'duration_seconds', 'progress_blue', 'progress_red', 'human_agent_ids', 'agent_controllers', 'replay_ok', 'problem', 'diverged_by_tick', 'created_at'],
        data.episodes.map((e) => [
          data.study.id,
          e.id,
          number(e.participantId),
          e.block,
          e.episode,
          e.opponent,
          e.teammate,
          e.seed,
          e.outcome,
          e.outcome === 'red' ? 1 : 0,
          e.ticks,
          e.durationSeconds,
          e.progressBlue,
          e.progressRed,
          e.humanAgents.join(' '),
          e.agentControllers.join(' '),
          e.replayOk ? 1 : 0,
          e.problem,
          e.divergedByTick,
          e.createdAt,
        ]),
        new Set(['problem']),
      );
    case 'judgements':
      return csv(
        ['study', 'participant', 'episode_id', 'clip', 'agent', 'truth', 'judged_human', 'created_at'],
        data.judgements.map((j) => [data.study.id, number(j.participantId), j.episodeId, j.clip, j.agent, j.truth, j.judgedHuman ? 1 : 0, j.createdAt]),
      );
    case 'attempts':
      return csv(
        ['study', 'participant', 'block', 'episode', 'attempt', 'seed', 'status', 'started_at', 'ended_at', 'ticks'],
        data.attempts.map((a) => [data.study.id, number(a.participantId), a.block, a.episode, a.attempt, a.seed, a.status, a.startedAt, a.endedAt, a.ticks]),
      );
  }
}

/** Everything of a study as one JSON document; each episode's replay and summary with `replays`. */
export function studyJson(store: StudyStore, data: StudyData, options: { replays?: boolean } = {}): string {
  const byId = new Map(data.participants.map((p) => [p.id, p.number]));
  const doc = {
    format: 'hillmind-study-export',
    version: 1,
    exportedAt: new Date().toISOString(),
    study: data.study,
    participants: data.participants.map(({ id: _id, ...p }) => p),
    answers: data.answers.map(({ id: _id, participantId, ...a }) => ({ participant: byId.get(participantId) ?? null, ...a })),
    episodes: data.episodes.map((e) => ({
      ...e,
      participant: e.participantId === null ? null : (byId.get(e.participantId) ?? null),
      ...(options.replays ? { summary: store.summaryJson(e.id), replay: JSON.parse(store.replayText(e.id) ?? 'null') as unknown } : {}),
    })),
    judgements: data.judgements.map(({ participantId, ...j }) => ({ participant: byId.get(participantId) ?? null, ...j })),
    attempts: data.attempts.map(({ participantId, ...a }) => ({
      participant: byId.get(participantId) ?? null,
      ...a,
      ...(options.replays ? { replay: JSON.parse(store.attemptReplayText(a.id) ?? 'null') as unknown } : {}),
    })),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}
