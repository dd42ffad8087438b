/**
 * GGUF files read and written whole (llm/node/gguf.ts): what is written reads back the same,
 * and a file cut short or holding what the reader does not know is refused, saying why.
 */
import { describe, expect, it } from 'vitest';
import { GGUF_TYPE, type GgufValue, ggufChunks, parseGguf, rowBytes, tensorBytes, tensorSize } from '../../src/llm/node/gguf';

const metadata = new Map<string, GgufValue>([
  ['general.architecture', { type: GGUF_TYPE.string, value: 'toy' }],
  ['toy.count', { type: GGUF_TYPE.u32, value: 7 }],
  ['toy.big', { type: GGUF_TYPE.u64, value: 2n ** 40n }],
  ['toy.flag', { type: GGUF_TYPE.bool, value: true }],
  ['toy.scale', { type: GGUF_TYPE.f32, value: 0.5 }],
  ['tokenizer.ggml.tokens', { type: GGUF_TYPE.array, itemType: GGUF_TYPE.string, items: ['<pad>', '▁a', 'b', '\n'] }],
  ['tokenizer.ggml.scores', { type: GGUF_TYPE.array, itemType: GGUF_TYPE.f32, items: [0, -1.5, -2, -3] }],
]);

/** A Q8_0 tensor of `rows` rows of 64 elements (2 blocks of 34 bytes a row), bytes counting up. */
const q8 = (name: string, rows: number) => {
  const dims = [64, rows];
  const data = Buffer.alloc(68 * rows);
  data.forEach((_, i) => (data[i] = i % 251));
  return { name, dims, type: 8, data };
};

const write = () => Buffer.concat(ggufChunks(metadata, [q8('token_embd.weight', 4), { name: 'norm', dims: [3], type: 0, data: Buffer.from(new Float32Array([1, 2, 3]).buffer) }]));

describe('a GGUF file', () => {
  it('reads back what was written: metadata with its types, tensors, their bytes, aligned', () => {
    const file = parseGguf(write(), 'toy.gguf');
    expect(file.version).toBe(3);
    expect([...file.metadata]).toEqual([...metadata]);
    expect(file.tensors.map((t) => [t.name, t.dims, t.type])).toEqual([['token_embd.weight', [64, 4], 8], ['norm', [3], 0]]);
    expect(file.dataOffset % 32).toBe(0);
    expect(file.tensors[1]!.offset % 32).toBe(0);
    expect(tensorBytes(file, file.tensors[0]!)).toEqual(q8('token_embd.weight', 4).data);
    expect([...new Float32Array(Uint8Array.from(tensorBytes(file, file.tensors[1]!)).buffer)]).toEqual([1, 2, 3]);
    // Written again from what was read, byte for byte the same.
    const again = Buffer.concat(ggufChunks(file.metadata, file.tensors.map((t) => ({ ...t, data: tensorBytes(file, t) }))));
    expect(again.equals(write())).toBe(true);
  });

  it('sizes rows by their type: Q8_0 is 34 bytes a block of 32, Q4_K 144 a block of 256', () => {
    expect(rowBytes({ name: 'x', dims: [640, 10], type: 8 })).toBe(680);
    expect(tensorSize({ name: 'x', dims: [1024, 640], type: 12 })).toBe(576 * 640);
    expect(() => rowBytes({ name: 'x', dims: [100], type: 8 })).toThrow('tensor x: a row of 100 elements is not whole Q8_0 blocks of 32');
    expect(() => rowBytes({ name: 'x', dims: [64], type: 99 })).toThrow(/tensor x has ggml type 99, which this reader does not know \(expected one of F32, F16/);
  });

  it('cut short, or not GGUF at all, is refused, naming what it was reading', () => {
    const whole = write();
    expect(() => parseGguf(whole.subarray(0, 40), 'cut.gguf')).toThrow(/^cut.gguf ends inside its GGUF header \(reading .* at byte \d+\): the file is cut short or not GGUF$/);
    expect(() => parseGguf(whole.subarray(0, whole.length - 24), 'cut.gguf')).toThrow(/^cut.gguf is cut short: tensor norm needs bytes up to \d+, the file has \d+$/);
    expect(() => parseGguf(Buffer.from('PK\u0003\u0004 not a model'), 'x.zip')).toThrow('x.zip is not a GGUF file (expected it to start with "GGUF")');
    const odd = Buffer.concat(ggufChunks(new Map([...metadata, ['general.alignment', { type: GGUF_TYPE.u32, value: 24 }]]), []));
    expect(() => parseGguf(odd, 'odd.gguf')).toThrow('odd.gguf: general.alignment is 24; expected a power of two');
  });

  it('a tensor whose bytes do not match its shape is not written', () => {
    expect(() => ggufChunks(metadata, [{ ...q8('t', 2), data: Buffer.alloc(10) }])).toThrow('tensor t: 10 bytes given, its shape and type need 136');
  });
});
