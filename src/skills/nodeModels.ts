/**
 * The Node model source: models/<name>.onnx with its card <name>.json, run by
 * onnxruntime-node. Node only (the page has its own source over fetch).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { parseModelCard } from './modelCard';
import type { ModelSource } from './modelSource';
import { type OrtModule, loadOnnxPolicy } from './onnxPolicy';

/** Where shipped models live; HILLMIND_MODELS points elsewhere (tests, experiments). */
const SESSION_OPTIONS = { intraOpNumThreads: 1, interOpNumThreads: 1 };

export const DEFAULT_MODEL_DIR = process.env.HILLMIND_MODELS ?? 'models';

export function nodeModelSource(dir = DEFAULT_MODEL_DIR): ModelSource {
  return {
    where: `${dir}/`,
    async load(name) {
      const modelPath = join(dir, `${name}.onnx`);
      const cardPath = join(dir, `${name}.json`);
      for (const path of [modelPath, cardPath]) {
        if (!existsSync(path)) throw new Error(`${path} is missing: train it with npm run train -- --skill ${name}`);
      }
      const card = parseModelCard(readFileSync(cardPath, 'utf8'), cardPath);
      // One thread per session: these models are tiny, and thread hand-offs cost more than
      // the arithmetic (tournament workers already use every core).
      return loadOnnxPolicy(ort as unknown as OrtModule, new Uint8Array(readFileSync(modelPath)), card, modelPath, SESSION_OPTIONS);
    },
  };
}
