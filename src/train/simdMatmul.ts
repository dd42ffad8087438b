/**
 * The MLP's one matrix product, C += A · B, as a WebAssembly SIMD kernel (f32x4).
 *
 * Why: the 2x128 networks of the study do 3.4x the multiply-adds of 2x64 per sample, and the
 * product was nearly all of a training step. The register-blocked JavaScript kernel it replaced
 * trained flat at 2x128 too slowly for the 90-minute retraining budget of all five models;
 * this kernel computes in float32 four lanes at a time. `npm run bench -- --only training`
 * prints flat's agent-steps/s at 2x64 and 2x128 and the retraining estimate against its
 * 90-minute target.
 *
 * The module is assembled here, byte by byte (about 300 bytes), so no compiler or toolchain is
 * needed to build it. Arithmetic is IEEE float32 mul then add (no fused multiply-add, which
 * WebAssembly SIMD does not have outside relaxed SIMD), in a fixed order: each C[i, j]
 * starts from its old value and adds A[i, k] · B[k, j] for k = 0, 1, ... So the same inputs
 * give the same bits in every engine, as training's determinism needs.
 *
 * Operands are copied into the module's memory and C back out; the copies are O(n^2) against
 * the product's O(n^3) (under 3% of a 256 x 128 x 128 product).
 */

// --- A tiny WebAssembly binary writer, just what the kernel below needs. ---

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

const I32 = 0x7f;
const F32 = 0x7d;
const V128 = 0x7b;

const get = (l: number) => [0x20, ...uleb(l)];
const set = (l: number) => [0x21, ...uleb(l)];
const i32 = (n: number) => [0x41, ...sleb(n)];
const ADD = 0x6a;
const SUB = 0x6b;
const MUL = 0x6c;
const GE_S = 0x4e;
const GT_S = 0x4a;
const EQZ = 0x45;
const f32Load = (offset = 0) => [0x2a, 2, ...uleb(offset)];
const f32Store = (offset = 0) => [0x38, 2, ...uleb(offset)];
const F32_MUL = 0x94;
const F32_ADD = 0x92;
const v128Load = (offset = 0) => [0xfd, ...uleb(0x00), 0, ...uleb(offset)];
const v128Store = (offset = 0) => [0xfd, ...uleb(0x0b), 0, ...uleb(offset)];
const SPLAT = [0xfd, ...uleb(0x13)];
const VADD = [0xfd, ...uleb(0xe4)];
const VMUL = [0xfd, ...uleb(0xe6)];

/** block { loop { <exitIf> br_if 1; body; br 0 } } */
const whileNot = (exitIf: number[], body: number[]) => [0x02, 0x40, 0x03, 0x40, ...exitIf, 0x0d, 1, ...body, 0x0c, 0, 0x0b, 0x0b];

// Locals: the parameters, then i32 scratch, then vectors, then one float.
const [PA, PB, PC, ROWS, INNER, COLS] = [0, 1, 2, 3, 4, 5];
const [I, J, K, AP, BP, CP, AROW, CROW, CB] = [6, 7, 8, 9, 10, 11, 12, 13, 14];
const [ACC0, ACC1, ACC2, ACC3, AV] = [15, 16, 17, 18, 19];
const S = 20;

/** Columns j..j+4*lanes-1 of row i: `lanes` vector accumulators over every k. */
function vectorColumns(lanes: number): number[] {
  const accs = [ACC0, ACC1, ACC2, ACC3].slice(0, lanes);
  const width = 4 * lanes;
  return whileNot(
    [...get(J), ...i32(width), ADD, ...get(COLS), GT_S],
    [
      ...get(CROW), ...get(J), ...i32(4), MUL, ADD, ...set(CP),
      ...accs.flatMap((acc, v) => [...get(CP), ...v128Load(16 * v), ...set(acc)]),
      ...get(AROW), ...set(AP),
      ...get(PB), ...get(J), ...i32(4), MUL, ADD, ...set(BP),
      ...get(INNER), ...set(K),
      ...whileNot(
        [...get(K), EQZ],
        [
          ...get(AP), ...f32Load(), ...SPLAT, ...set(AV),
          ...accs.flatMap((acc, v) => [...get(acc), ...get(AV), ...get(BP), ...v128Load(16 * v), ...VMUL, ...VADD, ...set(acc)]),
          ...get(AP), ...i32(4), ADD, ...set(AP),
          ...get(BP), ...get(CB), ADD, ...set(BP),
          ...get(K), ...i32(1), SUB, ...set(K),
        ],
      ),
      ...accs.flatMap((acc, v) => [...get(CP), ...get(acc), ...v128Store(16 * v)]),
      ...get(J), ...i32(width), ADD, ...set(J),
    ],
  );
}

/** The remaining columns one at a time, with the same mul-then-add as a vector lane. */
const scalarColumns = whileNot(
  [...get(J), ...get(COLS), GE_S],
  [
    ...get(CROW), ...get(J), ...i32(4), MUL, ADD, ...set(CP),
    ...get(CP), ...f32Load(), ...set(S),
    ...get(AROW), ...set(AP),
    ...get(PB), ...get(J), ...i32(4), MUL, ADD, ...set(BP),
    ...get(INNER), ...set(K),
    ...whileNot(
      [...get(K), EQZ],
      [
        ...get(S), ...get(AP), ...f32Load(), ...get(BP), ...f32Load(), F32_MUL, F32_ADD, ...set(S),
        ...get(AP), ...i32(4), ADD, ...set(AP),
        ...get(BP), ...get(CB), ADD, ...set(BP),
        ...get(K), ...i32(1), SUB, ...set(K),
      ],
    ),
    ...get(CP), ...get(S), ...f32Store(),
    ...get(J), ...i32(1), ADD, ...set(J),
  ],
);

/** mm(pa, pb, pc, rows, inner, cols): C[rows, cols] += A[rows, inner] · B[inner, cols], all row-major float32 at byte offsets. */
function kernelBody(): number[] {
  const code = [
    ...get(COLS), ...i32(4), MUL, ...set(CB),
    ...i32(0), ...set(I),
    ...whileNot(
      [...get(I), ...get(ROWS), GE_S],
      [
        ...get(PA), ...get(I), ...get(INNER), MUL, ...i32(4), MUL, ADD, ...set(AROW),
        ...get(PC), ...get(I), ...get(CB), MUL, ADD, ...set(CROW),
        ...i32(0), ...set(J),
        ...vectorColumns(4),
        ...vectorColumns(1),
        ...scalarColumns,
        ...get(I), ...i32(1), ADD, ...set(I),
      ],
    ),
    0x0b,
  ];
  const locals = [...uleb(3), ...uleb(9), I32, ...uleb(5), V128, ...uleb(1), F32];
  const body = [...locals, ...code];
  return [...uleb(body.length), ...body];
}

function section(id: number, content: number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}

const name = (s: string) => [...uleb(s.length), ...[...s].map((c) => c.charCodeAt(0))];

function kernelModule(): Uint8Array<ArrayBuffer> {
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 6, I32, I32, I32, I32, I32, I32, 0]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0x00, 1]),
    ...section(7, [2, ...name('mm'), 0x00, 0, ...name('memory'), 0x02, 0]),
    ...section(10, [1, ...kernelBody()]),
  ]);
}

const PAGE = 65536;

/** C += A · B on float32 arrays, computed in the WebAssembly kernel. One instance per thread. */
export class SimdMatmul {
  private readonly memory: WebAssembly.Memory;
  private readonly mm: (pa: number, pb: number, pc: number, rows: number, inner: number, cols: number) => void;
  private heap: Float32Array;

  constructor() {
    const instance = new WebAssembly.Instance(new WebAssembly.Module(kernelModule()));
    this.memory = instance.exports.memory as WebAssembly.Memory;
    this.mm = instance.exports.mm as SimdMatmul['mm'];
    this.heap = new Float32Array(this.memory.buffer);
  }

  /**
   * C[rows, cols] += A[rows, inner] · B[inner, cols]. B and C are row-major; A's element
   * (r, k) is A[r * rs + k * ks], so A may be read transposed (rs = 1) without the caller
   * copying it.
   */
  matmulAcc(A: Float32Array, rs: number, ks: number, B: Float32Array, C: Float32Array, rows: number, inner: number, cols: number): void {
    // Each operand starts on a 16-byte boundary (a whole number of 4-float groups).
    const align = (n: number) => (n + 3) & ~3;
    const a = 0;
    const b = align(rows * inner);
    const c = b + align(inner * cols);
    const end = c + rows * cols;
    if (end * 4 > this.memory.buffer.byteLength) {
      this.memory.grow(Math.ceil((end * 4 - this.memory.buffer.byteLength) / PAGE));
      this.heap = new Float32Array(this.memory.buffer);
    }
    const heap = this.heap;
    if (ks === 1 && rs === inner) heap.set(A.subarray(0, rows * inner), a);
    else {
      for (let r = 0; r < rows; r++) {
        const o = a + r * inner;
        for (let k = 0; k < inner; k++) heap[o + k] = A[r * rs + k * ks]!;
      }
    }
    heap.set(B.subarray(0, inner * cols), b);
    heap.set(C.subarray(0, rows * cols), c);
    this.mm(a * 4, b * 4, c * 4, rows, inner, cols);
    C.set(heap.subarray(c, end));
  }
}
