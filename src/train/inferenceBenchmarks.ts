/**
 * Policy inference for `npm run bench`: a raw onnxruntime-node session, the batching policy
 * over it, and the network that plays (skills/policyNetwork.ts: the same bits in every
 * engine), on a [20, 128, 128, 5] model, at the batch sizes of STACK.md.
 */
import * as ort from 'onnxruntime-node';
import { type Action, DEFAULT_CONFIG, OBS_SIZE, Rng, idleAction } from '../sim';
import { batchingPolicy } from '../skills/onnxPolicy';
import { PolicyNetwork, readPolicyNetwork } from '../skills/policyNetwork';
import { skillContext } from '../skills/policy';
import type { BenchRow } from '../match/benchmarks';
import { Mlp } from './mlp';
import { exportPolicyOnnx } from './onnxExport';

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
  const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const run = async (obs: Float32Array, count: number) => (await session.run({ obs: new ort.Tensor('float32', obs, [count, OBS_SIZE]) })).action_mean!.data as Float32Array;
  const policy = batchingPolicy('bench', run);
  const network = new PolicyNetwork(readPolicyNetwork(bytes, 'bench'));
  const networkOut = new Float32Array(256 * 5);
  const context = skillContext(DEFAULT_CONFIG);
  const rows: BenchRow[] = [];
  const perFigure = Math.max(0.5, seconds / 3);
  for (const batch of [1, 64, 256]) {
    const obs = Float32Array.from({ length: batch * OBS_SIZE }, () => rng.next() * 2 - 1);
    const out: Action[] = Array.from({ length: batch }, () => idleAction());
    const raw = await timePerCall(() => run(obs, batch), perFigure);
    const batched = await timePerCall(() => policy.act(obs, batch, out, context) as Promise<void>, perFigure);
    rows.push({ name: `ORT-node raw session, batch ${batch}`, value: raw, unit: 'ms/call' });
    rows.push({ name: `policy runtime (batching), batch ${batch}`, value: batched, unit: 'ms/call', target: 2 * raw, lowerIsBetter: true });
    const played = await timePerCall(async () => network.forward(obs, batch, networkOut), perFigure);
    rows.push({ name: `network that plays (deterministic), batch ${batch}`, value: played, unit: 'ms/call' });
  }
  // 64 agents asking separately in one turn (64 matches side by side) become one run.
  const single = Float32Array.from({ length: OBS_SIZE }, () => rng.next());
  const outs = Array.from({ length: 64 }, () => [idleAction()]);
  const grouped = await timePerCall(() => Promise.all(outs.map((o) => policy.act(single, 1, o, context))), perFigure);
  rows.push({ name: 'policy runtime, 64 single requests in one turn', value: grouped / 64, unit: 'ms/agent' });
  return rows;
}
