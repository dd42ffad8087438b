/**
 * Policy inference for `npm run bench`: a raw onnxruntime-node session beside the network
 * that plays (skills/policyNetwork.ts: the same bits in every engine), on a
 * [20, 128, 128, 5] model, at the batch sizes of STACK.md. onnxruntime-node is a dev
 * dependency (no part of the product loads an ONNX engine), so it is imported only here,
 * when the row runs.
 */
import { OBS_SIZE, Rng } from '../sim';
import { PolicyNetwork, readPolicyNetwork } from '../skills/policyNetwork';
import type { BenchRow } from './match';
import { Mlp } from '../train/mlp';
import { exportPolicyOnnx } from '../train/onnxExport';

async function timePerCall(call: () => Promise<unknown>, seconds: number): Promise<number> {
  for (let i = 0; i < 50; i++) await call(); // warm up
  let calls = 0;
  const started = performance.now();
  while (performance.now() - started < seconds * 1000) {
    await call();
    calls++;
  }
  return (performance.now() - started) / calls;
}

export async function benchInference(seconds: number): Promise<BenchRow[]> {
  const rng = new Rng(3);
  const mlp = new Mlp([OBS_SIZE, 128, 128, 5], () => rng.next());
  const bytes = exportPolicyOnnx({ mlp, obsMean: new Float32Array(OBS_SIZE), obsVar: new Float32Array(OBS_SIZE).fill(1), clip: 5, epsilon: 1e-8 });
  const ort = await import('onnxruntime-node');
  const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const run = async (obs: Float32Array, count: number) => (await session.run({ obs: new ort.Tensor('float32', obs, [count, OBS_SIZE]) })).action_mean!.data as Float32Array;
  const network = new PolicyNetwork(readPolicyNetwork(bytes, 'bench'));
  const networkOut = new Float32Array(256 * 5);
  const rows: BenchRow[] = [];
  const perFigure = Math.max(0.5, seconds / 3);
  try {
    for (const batch of [1, 64, 256]) {
      const obs = Float32Array.from({ length: batch * OBS_SIZE }, () => rng.next() * 2 - 1);
      const raw = await timePerCall(() => run(obs, batch), perFigure);
      rows.push({ name: `ORT-node raw session, batch ${batch}`, value: raw, unit: 'ms/call' });
      const played = await timePerCall(async () => network.forward(obs, batch, networkOut), perFigure);
      rows.push({ name: `network that plays (deterministic), batch ${batch}`, value: played, unit: 'ms/call' });
    }
  } finally {
    await session.release();
  }
  return rows;
}
