/**
 * One training run as npm run train makes it, called directly: its wall time is read on
 * the clock it is given, and a resumed run goes on from its checkpoint's steps.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type TrainRunDependencies, trainModel } from '../../src/train/run';
import { tempDir } from './fixtures';

const tmp = tempDir('train-run');
afterAll(() => tmp.remove());

/** A clock that moves `stepMs` at each reading, and the progress shown, recorded. */
function stages(stepMs: number): TrainRunDependencies & { updates: number[]; notes: string[] } {
  let ms = 0;
  const updates: number[] = [];
  const notes: string[] = [];
  return { updates, notes, now: () => (ms += stepMs), progress: { bar: () => ({ update: (done) => updates.push(done), done: () => {} }), note: (line) => notes.push(line) } };
}

describe('trainModel', () => {
  const runDir = join(tmp.path, 'runs', 'retreat');
  const outDir = join(tmp.path, 'models');
  const run = { name: 'retreat', runDir, outDir, envs: 2, workers: 1 } as const;

  it('trains, checkpoints and exports, timing the run on the clock it is given', async () => {
    const first = stages(1000);
    const result = await trainModel({ ...run, resume: false, steps: 256 }, first);
    expect(result.steps).toBe(first.updates.at(-1));
    expect(result.steps).toBeGreaterThanOrEqual(256);
    for (const file of ['checkpoint.json', 'curve.jsonl', 'curve.svg']) expect(existsSync(join(runDir, file)), file).toBe(true);
    const card = JSON.parse(readFileSync(join(outDir, 'retreat.json'), 'utf8'));
    expect(card.training.steps).toBe(result.steps);
    // Whole seconds of the injected clock, not of the machine's.
    expect(result.wallSeconds % 1).toBe(0);
    expect(card.training.wallSeconds).toBe(result.wallSeconds);
  });

  it('resumes from the checkpoint: the steps go on, and the note says from where', async () => {
    const before = JSON.parse(readFileSync(join(outDir, 'retreat.json'), 'utf8')).training.steps as number;
    const again = stages(1000);
    const result = await trainModel({ ...run, envs: undefined, workers: undefined, resume: true, steps: before + 256 }, again);
    expect(again.notes[0]).toMatch(new RegExp(`^resuming retreat from ${before} steps \\(${runDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; optimizer and episodes restored\\)$`));
    expect(again.updates[0]).toBeGreaterThan(before);
    expect(result.steps).toBeGreaterThanOrEqual(before + 256);
  });
});
