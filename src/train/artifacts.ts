/**
 * What training writes: checkpoints to resume from (the networks and normaliser, and the
 * trainer's optimizer, random stream and episodes, so a resumed run continues exactly), the
 * learning curve (JSON Lines and an SVG plot), and the shipped model: <name>.onnx beside
 * its card <name>.json.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { ACTION_SPEC_VERSION, OBS_SIZE, OBS_SPEC_VERSION, createWorld, observe, parseJsonText } from '../sim';
import {
  MODEL_CARD_FORMAT,
  MODEL_CARD_VERSION,
  type ModelCard,
  POLICY_INPUT,
  POLICY_OUTPUT,
  POLICY_OUTPUT_LAYOUT,
} from '../skills/modelCard';
import { sha256Hex } from '../skills/sha256';
import { Mlp } from './mlp';
import { RunningNormalizer } from './normalizer';
import { AGENTS_PER_TEAM } from './env';
import { exportPolicyOnnx, referenceForward } from './onnxExport';
import { type CurvePoint, learningCurveSvg } from './plot';
import type { TrainerState } from './learner';
import type { PolicyState, PpoConfig, UpdateStats } from './ppo';

const toBase64 = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
const fromBase64 = (s: string) => {
  const b = Buffer.from(s, 'base64');
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
};

/** Write a file whole or not at all (a killed run never leaves half a checkpoint). */
function writeAtomic(path: string, data: string | Uint8Array): void {
  writeFileSync(`${path}.tmp`, data);
  renameSync(`${path}.tmp`, path);
}

export interface Checkpoint {
  readonly name: string;
  readonly steps: number;
  readonly wallSeconds: number;
  readonly config: PpoConfig;
  readonly state: PolicyState;
  /** The optimizer, random stream and environments; absent in checkpoints written before they were kept. */
  readonly trainer?: TrainerState;
  /**
   * Who teaches the run, as its card names it (null: nobody), so a resumed run is taught
   * as it began; absent in checkpoints written before it was kept.
   */
  readonly teacher?: string | null;
}

/** checkpoint.json: the networks as base64 float32, the rest as JSON. */
interface CheckpointFile {
  readonly name: string;
  readonly steps: number;
  readonly wallSeconds: number;
  readonly config: PpoConfig;
  readonly policy: { readonly sizes: number[]; readonly params: string };
  readonly value: { readonly sizes: number[]; readonly params: string };
  readonly logStd: number[];
  readonly normalizer: ReturnType<RunningNormalizer['toJSON']>;
  /**
   * The trainer's state in Node's structured-clone format (node:v8), base64: typed arrays
   * and worlds mid-episode come back exactly (JSON would turn -0 into 0). Only the trainer reads it.
   */
  readonly trainer?: string;
  readonly teacher?: string | null;
}

export function saveCheckpoint(dir: string, cp: Checkpoint): void {
  mkdirSync(dir, { recursive: true });
  const { state } = cp;
  const json: CheckpointFile = {
    name: cp.name,
    steps: cp.steps,
    wallSeconds: cp.wallSeconds,
    config: cp.config,
    policy: { sizes: [...state.policy.sizes], params: toBase64(state.policy.params) },
    value: { sizes: [...state.value.sizes], params: toBase64(state.value.params) },
    logStd: Array.from(state.logStd),
    normalizer: state.normalizer.toJSON(),
    ...(cp.trainer ? { trainer: serialize(cp.trainer).toString('base64') } : {}),
    ...(cp.teacher !== undefined ? { teacher: cp.teacher } : {}),
  };
  writeAtomic(join(dir, 'checkpoint.json'), JSON.stringify(json));
}

export function loadCheckpoint(dir: string): Checkpoint {
  const path = join(dir, 'checkpoint.json');
  if (!existsSync(path)) throw new Error(`no checkpoint to resume from at ${path}`);
  const json = parseJsonText(readFileSync(path, 'utf8'), path) as CheckpointFile;
  const noRandom = () => 0;
  const policy = new Mlp(json.policy.sizes, noRandom);
  policy.setParams(fromBase64(json.policy.params));
  const value = new Mlp(json.value.sizes, noRandom);
  value.setParams(fromBase64(json.value.params));
  return {
    name: json.name,
    steps: json.steps,
    wallSeconds: json.wallSeconds,
    config: json.config,
    state: { policy, value, logStd: Float32Array.from(json.logStd), normalizer: RunningNormalizer.fromJSON(json.normalizer) },
    ...(json.trainer ? { trainer: deserialize(Buffer.from(json.trainer, 'base64')) as TrainerState } : {}),
    ...(typeof json.teacher === 'string' || json.teacher === null ? { teacher: json.teacher } : {}),
  };
}

/** Append one update's statistics to the run's learning curve (JSON Lines). */
export function appendCurve(dir: string, stats: UpdateStats): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'curve.jsonl'), `${JSON.stringify(stats)}\n`, { flag: 'a' });
}

/** Keep only the curve up to a checkpoint's steps (a resumed run replays what came after). */
export function truncateCurve(dir: string, steps: number): void {
  const kept = readCurve(dir).filter((s) => s.steps <= steps);
  writeAtomic(join(dir, 'curve.jsonl'), kept.map((s) => `${JSON.stringify(s)}\n`).join(''));
}

export function readCurve(dir: string): UpdateStats[] {
  const path = join(dir, 'curve.jsonl');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as UpdateStats);
}

/** Smooth a curve (moving average over updates) and keep at most `max` points. */
export function curvePoints(curve: readonly UpdateStats[], max = 200): CurvePoint[] {
  const window = 5;
  const smoothed = curve.map((s, i) => {
    const recent = curve.slice(Math.max(0, i - window + 1), i + 1).filter((r) => r.meanReturn !== null);
    return { steps: s.steps, meanReturn: recent.length ? recent.reduce((a, r) => a + r.meanReturn!, 0) / recent.length : null };
  });
  const stride = Math.max(1, Math.ceil(smoothed.length / max));
  return smoothed.filter((_, i) => i % stride === 0 || i === smoothed.length - 1);
}

export async function writeCurvePlot(path: string, title: string, curve: readonly UpdateStats[]): Promise<void> {
  writeAtomic(path, await learningCurveSvg(title, curvePoints(curve)));
}

/** Observations from a few fixed worlds: the card's probe inputs. */
function probeObservations(): Float32Array {
  const obs = new Float32Array(8 * OBS_SIZE);
  for (let i = 0; i < 8; i++) observe(createWorld(1000 + i), i % 4, obs, i * OBS_SIZE);
  return obs;
}

export interface ExportInfo {
  readonly name: string;
  readonly kind: 'skill' | 'flat';
  readonly scenario: string;
  readonly opponent: string;
  /** The teacher and its schedule, as a sentence; null without one. */
  readonly teacher: string | null;
  /** What the reward was, as a sentence (absent: the scenario's own). */
  readonly reward?: string;
  readonly steps: number;
  readonly wallSeconds: number;
  readonly config: PpoConfig;
  readonly curve: readonly UpdateStats[];
  readonly evaluation: Record<string, unknown> | null;
}

/** Write <dir>/<name>.onnx, its card <name>.json and its curve plot <name>.curve.svg. */
export async function exportModel(dir: string, state: PolicyState, info: ExportInfo): Promise<ModelCard> {
  mkdirSync(dir, { recursive: true });
  const norm = state.normalizer.snapshot();
  const exportOptions = {
    mlp: state.policy,
    ...norm,
    docString: `Hillmind ${info.kind} policy '${info.name}': obs[batch, ${OBS_SIZE}] -> action_mean[batch, 5] (${POLICY_OUTPUT_LAYOUT.join(', ')})`,
    metadata: { name: info.name, obsSpecVersion: String(OBS_SPEC_VERSION), actionSpecVersion: String(ACTION_SPEC_VERSION) },
  };
  const bytes = exportPolicyOnnx(exportOptions);
  const probeIn = probeObservations();
  const probeOut = referenceForward(exportOptions, probeIn, 8);
  const rows = (a: Float32Array, width: number) => Array.from({ length: a.length / width }, (_, i) => Array.from(a.subarray(i * width, (i + 1) * width)));
  const finals = info.curve.slice(-10).filter((s) => s.meanReturn !== null);
  const plot = `${info.name}.curve.svg`;
  const card: ModelCard = {
    format: MODEL_CARD_FORMAT,
    version: MODEL_CARD_VERSION,
    name: info.name,
    kind: info.kind,
    obsSpecVersion: OBS_SPEC_VERSION,
    actionSpecVersion: ACTION_SPEC_VERSION,
    sha256: sha256Hex(bytes),
    io: {
      input: POLICY_INPUT,
      output: POLICY_OUTPUT,
      inputShape: ['batch', OBS_SIZE],
      outputShape: ['batch', POLICY_OUTPUT_LAYOUT.length],
      outputLayout: [...POLICY_OUTPUT_LAYOUT],
    },
    network: { hidden: [...info.config.hidden], activation: 'tanh' },
    logStd: Array.from(state.logStd),
    probe: { inputs: rows(probeIn, OBS_SIZE), outputs: rows(probeOut, POLICY_OUTPUT_LAYOUT.length), tolerance: 1e-4 },
    training: {
      scenario: info.scenario,
      opponent: info.opponent,
      teacher: info.teacher,
      ...(info.reward ? { reward: info.reward } : {}),
      agentsPerTeam: AGENTS_PER_TEAM,
      config: { ...info.config },
      seed: info.config.seed,
      steps: info.steps,
      wallSeconds: Math.round(info.wallSeconds),
      stepsPerSecond: Math.round(info.steps / Math.max(1e-9, info.wallSeconds)),
      reproduce: `npm run train -- --skill ${info.name} --steps ${info.config.totalSteps} --seed ${info.config.seed} --envs ${info.config.numEnvs} --workers ${info.config.workers}`,
    },
    curve: {
      points: curvePoints(info.curve),
      finalMeanReturn: finals.length ? finals.reduce((a, s) => a + s.meanReturn!, 0) / finals.length : null,
      plot,
    },
    evaluation: info.evaluation,
    createdAt: new Date().toISOString(),
  };
  writeAtomic(join(dir, `${info.name}.onnx`), bytes);
  writeAtomic(join(dir, `${info.name}.json`), `${JSON.stringify(card, null, 2)}\n`);
  await writeCurvePlot(join(dir, plot), `${info.name}: learning curve`, info.curve);
  return card;
}
