import { Mlp } from './src/train/mlp';
import { Adam } from './src/train/adam';
let s = 1; const rng = () => { s = (s * 16807) % 2147483647; return s / 2147483647; };
for (const sizes of [[20, 64, 64, 5], [20, 128, 128, 5]]) {
const mlp = new Mlp(sizes, rng, { outputGain: 1 });
const adam = new Adam(mlp.params.length, { maxGradNorm: 0.5 });
for (const B of [64, 256, 2048]) {
  const x = Float32Array.from({ length: B * 20 }, () => rng() - 0.5);
  const d = Float32Array.from({ length: B * 5 }, () => rng() - 0.5);
  const time = (f: () => void) => { for (let i = 0; i < 20; i++) f(); const n = B > 1000 ? 20 : 100; const t0 = performance.now(); for (let i = 0; i < n; i++) f(); return ((performance.now() - t0) / n).toFixed(2); };
  const tf = time(() => mlp.forward(x, B));
  const tb = time(() => mlp.backward(d));
  const ta = time(() => adam.step(mlp.params, mlp.grads));
  const tall = time(() => { mlp.zeroGrad(); mlp.forward(x, B); mlp.backward(d); adam.step(mlp.params, mlp.grads); });
  console.log(sizes.join('x'), B, 'fwd', tf, 'bwd', tb, 'adam', ta, 'step', tall, 'ms');
}}
