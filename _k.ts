function A(X: Float32Array, W: Float32Array, b: Float32Array, Y: Float32Array, batch: number, nIn: number, nOut: number) {
  const k4 = nIn - (nIn % 4);
  for (let i = 0; i < batch; i++) {
    const xo = i * nIn, yo = i * nOut;
    for (let j = 0; j < nOut; j++) Y[yo + j] = b[j]!;
    let k = 0;
    for (; k < k4; k += 4) {
      const a0 = X[xo + k]!, a1 = X[xo + k + 1]!, a2 = X[xo + k + 2]!, a3 = X[xo + k + 3]!;
      const w0 = k * nOut, w1 = w0 + nOut, w2 = w1 + nOut, w3 = w2 + nOut;
      for (let j = 0; j < nOut; j++) Y[yo + j] = Y[yo + j]! + a0 * W[w0 + j]! + a1 * W[w1 + j]! + a2 * W[w2 + j]! + a3 * W[w3 + j]!;
    }
    for (; k < nIn; k++) { const a = X[xo + k]!; const w0 = k * nOut; for (let j = 0; j < nOut; j++) Y[yo + j] = Y[yo + j]! + a * W[w0 + j]!; }
  }
}
// i blocked by 2, k by 4
function B(X: Float32Array, W: Float32Array, b: Float32Array, Y: Float32Array, batch: number, nIn: number, nOut: number) {
  const k4 = nIn - (nIn % 4);
  let i = 0;
  for (; i + 1 < batch; i += 2) {
    const xo = i * nIn, xp = xo + nIn, yo = i * nOut, yp = yo + nOut;
    for (let j = 0; j < nOut; j++) { Y[yo + j] = b[j]!; Y[yp + j] = b[j]!; }
    let k = 0;
    for (; k < k4; k += 4) {
      const a0 = X[xo + k]!, a1 = X[xo + k + 1]!, a2 = X[xo + k + 2]!, a3 = X[xo + k + 3]!;
      const c0 = X[xp + k]!, c1 = X[xp + k + 1]!, c2 = X[xp + k + 2]!, c3 = X[xp + k + 3]!;
      const w0 = k * nOut, w1 = w0 + nOut, w2 = w1 + nOut, w3 = w2 + nOut;
      for (let j = 0; j < nOut; j++) {
        const v0 = W[w0 + j]!, v1 = W[w1 + j]!, v2 = W[w2 + j]!, v3 = W[w3 + j]!;
        Y[yo + j] = Y[yo + j]! + a0 * v0 + a1 * v1 + a2 * v2 + a3 * v3;
        Y[yp + j] = Y[yp + j]! + c0 * v0 + c1 * v1 + c2 * v2 + c3 * v3;
      }
    }
    for (; k < nIn; k++) { const a = X[xo + k]!, c = X[xp + k]!; const w0 = k * nOut; for (let j = 0; j < nOut; j++) { const v = W[w0 + j]!; Y[yo + j] = Y[yo + j]! + a * v; Y[yp + j] = Y[yp + j]! + c * v; } }
  }
  if (i < batch) A(X.subarray(i * nIn), W, b, Y.subarray(i * nOut), 1, nIn, nOut);
}
// plain i-k-j, j unrolled 4
function C(X: Float32Array, W: Float32Array, b: Float32Array, Y: Float32Array, batch: number, nIn: number, nOut: number) {
  for (let i = 0; i < batch; i++) {
    const xo = i * nIn, yo = i * nOut;
    for (let j = 0; j < nOut; j++) Y[yo + j] = b[j]!;
    for (let k = 0; k < nIn; k++) {
      const a = X[xo + k]!; const w0 = k * nOut; let j = 0;
      for (; j + 3 < nOut; j += 4) { Y[yo + j] += a * W[w0 + j]!; Y[yo + j + 1] += a * W[w0 + j + 1]!; Y[yo + j + 2] += a * W[w0 + j + 2]!; Y[yo + j + 3] += a * W[w0 + j + 3]!; }
      for (; j < nOut; j++) Y[yo + j] += a * W[w0 + j]!;
    }
  }
}
// i by 4, k by 4 with a Float64 row accumulator? -> try i4 k2
function D(X: Float32Array, W: Float32Array, b: Float32Array, Y: Float32Array, batch: number, nIn: number, nOut: number) {
  let i = 0;
  for (; i + 3 < batch; i += 4) {
    const x0 = i * nIn, x1 = x0 + nIn, x2 = x1 + nIn, x3 = x2 + nIn;
    const y0 = i * nOut, y1 = y0 + nOut, y2 = y1 + nOut, y3 = y2 + nOut;
    for (let j = 0; j < nOut; j++) { const bj = b[j]!; Y[y0 + j] = bj; Y[y1 + j] = bj; Y[y2 + j] = bj; Y[y3 + j] = bj; }
    let k = 0;
    for (; k + 1 < nIn; k += 2) {
      const a0 = X[x0 + k]!, a1 = X[x1 + k]!, a2 = X[x2 + k]!, a3 = X[x3 + k]!;
      const c0 = X[x0 + k + 1]!, c1 = X[x1 + k + 1]!, c2 = X[x2 + k + 1]!, c3 = X[x3 + k + 1]!;
      const w0 = k * nOut, w1 = w0 + nOut;
      for (let j = 0; j < nOut; j++) {
        const v = W[w0 + j]!, u = W[w1 + j]!;
        Y[y0 + j] = Y[y0 + j]! + a0 * v + c0 * u;
        Y[y1 + j] = Y[y1 + j]! + a1 * v + c1 * u;
        Y[y2 + j] = Y[y2 + j]! + a2 * v + c2 * u;
        Y[y3 + j] = Y[y3 + j]! + a3 * v + c3 * u;
      }
    }
    for (; k < nIn; k++) { const a0 = X[x0 + k]!, a1 = X[x1 + k]!, a2 = X[x2 + k]!, a3 = X[x3 + k]!; const w0 = k * nOut; for (let j = 0; j < nOut; j++) { const v = W[w0 + j]!; Y[y0 + j] = Y[y0 + j]! + a0 * v; Y[y1 + j] = Y[y1 + j]! + a1 * v; Y[y2 + j] = Y[y2 + j]! + a2 * v; Y[y3 + j] = Y[y3 + j]! + a3 * v; } }
  }
  if (i < batch) A(X.subarray(i * nIn), W, b, Y.subarray(i * nOut), batch - i, nIn, nOut);
}
function E(X: Float32Array, W: Float32Array, b: Float32Array, Y: Float32Array, batch: number, nIn: number, nOut: number) {
  let i = 0;
  for (; i + 3 < batch; i += 4) {
    const x0 = i * nIn, x1 = x0 + nIn, x2 = x1 + nIn, x3 = x2 + nIn;
    const y0 = i * nOut, y1 = y0 + nOut, y2 = y1 + nOut, y3 = y2 + nOut;
    for (let j = 0; j < nOut; j++) { const bj = b[j]!; Y[y0 + j] = bj; Y[y1 + j] = bj; Y[y2 + j] = bj; Y[y3 + j] = bj; }
    for (let k = 0; k < nIn; k++) {
      const a0 = X[x0 + k]!, a1 = X[x1 + k]!, a2 = X[x2 + k]!, a3 = X[x3 + k]!;
      const w0 = k * nOut;
      for (let j = 0; j < nOut; j++) { const v = W[w0 + j]!; Y[y0 + j] = Y[y0 + j]! + a0 * v; Y[y1 + j] = Y[y1 + j]! + a1 * v; Y[y2 + j] = Y[y2 + j]! + a2 * v; Y[y3 + j] = Y[y3 + j]! + a3 * v; }
    }
  }
  if (i < batch) A(X.subarray(i * nIn), W, b, Y.subarray(i * nOut), batch - i, nIn, nOut);
}
function F(X: Float32Array, W: Float32Array, b: Float32Array, Y: Float32Array, batch: number, nIn: number, nOut: number) {
  let i = 0;
  for (; i + 3 < batch; i += 4) {
    const x0 = i * nIn, x1 = x0 + nIn, x2 = x1 + nIn, x3 = x2 + nIn;
    const y0 = i * nOut, y1 = y0 + nOut, y2 = y1 + nOut, y3 = y2 + nOut;
    for (let j = 0; j < nOut; j++) { const bj = b[j]!; Y[y0 + j] = bj; Y[y1 + j] = bj; Y[y2 + j] = bj; Y[y3 + j] = bj; }
    let k = 0;
    for (; k + 3 < nIn; k += 4) {
      const a0 = X[x0 + k]!, a1 = X[x1 + k]!, a2 = X[x2 + k]!, a3 = X[x3 + k]!;
      const c0 = X[x0 + k + 1]!, c1 = X[x1 + k + 1]!, c2 = X[x2 + k + 1]!, c3 = X[x3 + k + 1]!;
      const e0 = X[x0 + k + 2]!, e1 = X[x1 + k + 2]!, e2 = X[x2 + k + 2]!, e3 = X[x3 + k + 2]!;
      const f0 = X[x0 + k + 3]!, f1 = X[x1 + k + 3]!, f2 = X[x2 + k + 3]!, f3 = X[x3 + k + 3]!;
      const w0 = k * nOut, w1 = w0 + nOut, w2 = w1 + nOut, w3 = w2 + nOut;
      for (let j = 0; j < nOut; j++) {
        const v = W[w0 + j]!, u = W[w1 + j]!, p = W[w2 + j]!, q = W[w3 + j]!;
        Y[y0 + j] = Y[y0 + j]! + a0 * v + c0 * u + e0 * p + f0 * q;
        Y[y1 + j] = Y[y1 + j]! + a1 * v + c1 * u + e1 * p + f1 * q;
        Y[y2 + j] = Y[y2 + j]! + a2 * v + c2 * u + e2 * p + f2 * q;
        Y[y3 + j] = Y[y3 + j]! + a3 * v + c3 * u + e3 * p + f3 * q;
      }
    }
    for (; k < nIn; k++) { const a0 = X[x0 + k]!, a1 = X[x1 + k]!, a2 = X[x2 + k]!, a3 = X[x3 + k]!; const w0 = k * nOut; for (let j = 0; j < nOut; j++) { const v = W[w0 + j]!; Y[y0 + j] = Y[y0 + j]! + a0 * v; Y[y1 + j] = Y[y1 + j]! + a1 * v; Y[y2 + j] = Y[y2 + j]! + a2 * v; Y[y3 + j] = Y[y3 + j]! + a3 * v; } }
  }
  if (i < batch) A(X.subarray(i * nIn), W, b, Y.subarray(i * nOut), batch - i, nIn, nOut);
}
const r = () => Math.random() - 0.5;
for (const [nIn, nOut] of [[128, 128], [64, 64], [20, 128]]) {
  const batch = 2048;
  const X = Float32Array.from({ length: batch * nIn }, r), W = Float32Array.from({ length: nIn * nOut }, r), b = Float32Array.from({ length: nOut }, r);
  const Y = new Float32Array(batch * nOut);
  const res: string[] = [];
  for (const [name, f] of [['A', A], ['B', B], ['D', D], ['E', E], ['F', F], ['D', D], ['B', B], ['E', E], ['F', F]] as const) {
    for (let i = 0; i < 10; i++) f(X, W, b, Y, batch, nIn, nOut);
    const t0 = performance.now(); for (let i = 0; i < 30; i++) f(X, W, b, Y, batch, nIn, nOut);
    const ms = (performance.now() - t0) / 30; res.push(`${name} ${ms.toFixed(2)}ms ${(batch * nIn * nOut / ms / 1e6).toFixed(2)}GMAC/s`);
  }
  console.log(nIn, nOut, res.join(' | '));
}
