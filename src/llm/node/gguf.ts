/**
 * GGUF files (llama.cpp's model format, spec: ggml/docs/gguf.md), read and written whole:
 * the header (version, typed metadata, tensor infos) and the tensors' bytes, for deriving
 * one model file from another (derivedModel.ts). Strings are read as UTF-8 text (a string
 * that is not valid UTF-8 would be written back changed; Gemma's vocabulary is valid). Written here because no maintained npm
 * package writes GGUF (@huggingface/gguf and node-llama-cpp only read it). Node only.
 *
 * Every size is checked against the file: a tensor whose bytes run past the end, or over
 * the next tensor, or a header cut short, is an error that names what was expected.
 */

const MAGIC = 0x46554747; // "GGUF", little-endian
const DEFAULT_ALIGNMENT = 32;

/** Metadata value types (gguf_type). */
export const GGUF_TYPE = { u8: 0, i8: 1, u16: 2, i16: 3, u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9, u64: 10, i64: 11, f64: 12 } as const;

export type Scalar = number | bigint | boolean | string;

/** One metadata value with its type; an array's items share one type. */
export type GgufValue =
  | { readonly type: number; readonly value: Scalar }
  | { readonly type: typeof GGUF_TYPE.array; readonly itemType: number; readonly items: readonly Scalar[] };

export interface GgufTensorInfo {
  readonly name: string;
  /** Elements per dimension, innermost (a row) first. */
  readonly dims: readonly number[];
  /** The ggml type (ggml_type). */
  readonly type: number;
  /** Where its bytes start, from the start of the tensor data. */
  readonly offset: number;
}

export interface GgufHeader {
  readonly version: number;
  /** In file order. */
  readonly metadata: ReadonlyMap<string, GgufValue>;
  readonly tensors: readonly GgufTensorInfo[];
  readonly alignment: number;
}

export interface GgufFile extends GgufHeader {
  /** The whole file; a tensor's bytes are tensorBytes(). */
  readonly bytes: Buffer;
  /** Where the tensor data starts in `bytes`. */
  readonly dataOffset: number;
}

/** Elements per block and bytes per block of the ggml types a model file may hold. */
const GGML_BLOCKS: Readonly<Record<number, { readonly elements: number; readonly bytes: number; readonly name: string }>> = {
  0: { elements: 1, bytes: 4, name: 'F32' },
  1: { elements: 1, bytes: 2, name: 'F16' },
  2: { elements: 32, bytes: 18, name: 'Q4_0' },
  3: { elements: 32, bytes: 20, name: 'Q4_1' },
  6: { elements: 32, bytes: 22, name: 'Q5_0' },
  7: { elements: 32, bytes: 24, name: 'Q5_1' },
  8: { elements: 32, bytes: 34, name: 'Q8_0' },
  10: { elements: 256, bytes: 84, name: 'Q2_K' },
  11: { elements: 256, bytes: 110, name: 'Q3_K' },
  12: { elements: 256, bytes: 144, name: 'Q4_K' },
  13: { elements: 256, bytes: 176, name: 'Q5_K' },
  14: { elements: 256, bytes: 210, name: 'Q6_K' },
  30: { elements: 1, bytes: 2, name: 'BF16' },
};

/** The bytes of one row (the first dimension) of a tensor of `type`. */
export function rowBytes(tensor: Pick<GgufTensorInfo, 'name' | 'dims' | 'type'>): number {
  const block = GGML_BLOCKS[tensor.type];
  if (!block) throw new Error(`tensor ${tensor.name} has ggml type ${tensor.type}, which this reader does not know (expected one of ${Object.values(GGML_BLOCKS).map((b) => b.name).join(', ')})`);
  const row = tensor.dims[0] ?? 1;
  if (row % block.elements !== 0) throw new Error(`tensor ${tensor.name}: a row of ${row} elements is not whole ${block.name} blocks of ${block.elements}`);
  return (row / block.elements) * block.bytes;
}

/** The bytes of a whole tensor. */
export function tensorSize(tensor: Pick<GgufTensorInfo, 'name' | 'dims' | 'type'>): number {
  return tensor.dims.slice(1).reduce((n, d) => n * d, rowBytes(tensor));
}

const alignUp = (n: number, alignment: number) => Math.ceil(n / alignment) * alignment;

/** A cursor over the header's bytes that names what it was reading when the file ends. */
class Reader {
  at = 0;
  constructor(private readonly bytes: Buffer, private readonly source: string) {}

  private need(n: number, what: string): void {
    if (this.at + n > this.bytes.length) throw new Error(`${this.source} ends inside its GGUF header (reading ${what} at byte ${this.at}): the file is cut short or not GGUF`);
  }

  u32(what: string): number {
    this.need(4, what);
    const v = this.bytes.readUInt32LE(this.at);
    this.at += 4;
    return v;
  }

  u64(what: string): number {
    this.need(8, what);
    const v = this.bytes.readBigUInt64LE(this.at);
    this.at += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${this.source}: ${what} is ${v}, past what a file here can hold`);
    return Number(v);
  }

  string(what: string): string {
    const length = this.u64(`${what}'s length`);
    this.need(length, what);
    const text = this.bytes.toString('utf8', this.at, this.at + length);
    this.at += length;
    return text;
  }

  scalar(type: number, what: string): Scalar {
    const b = this.bytes;
    const fixed = (n: number, read: (at: number) => Scalar): Scalar => {
      this.need(n, what);
      const v = read(this.at);
      this.at += n;
      return v;
    };
    switch (type) {
      case GGUF_TYPE.u8: return fixed(1, (at) => b.readUInt8(at));
      case GGUF_TYPE.i8: return fixed(1, (at) => b.readInt8(at));
      case GGUF_TYPE.u16: return fixed(2, (at) => b.readUInt16LE(at));
      case GGUF_TYPE.i16: return fixed(2, (at) => b.readInt16LE(at));
      case GGUF_TYPE.u32: return fixed(4, (at) => b.readUInt32LE(at));
      case GGUF_TYPE.i32: return fixed(4, (at) => b.readInt32LE(at));
      case GGUF_TYPE.f32: return fixed(4, (at) => b.readFloatLE(at));
      case GGUF_TYPE.bool: return fixed(1, (at) => b.readUInt8(at) !== 0);
      case GGUF_TYPE.string: return this.string(what);
      case GGUF_TYPE.u64: return fixed(8, (at) => b.readBigUInt64LE(at));
      case GGUF_TYPE.i64: return fixed(8, (at) => b.readBigInt64LE(at));
      case GGUF_TYPE.f64: return fixed(8, (at) => b.readDoubleLE(at));
      default: throw new Error(`${this.source}: ${what} has value type ${type}, not a GGUF type (0-12)`);
    }
  }

  value(what: string): GgufValue {
    const type = this.u32(`${what}'s type`);
    if (type !== GGUF_TYPE.array) return { type, value: this.scalar(type, what) };
    const itemType = this.u32(`${what}'s item type`);
    if (itemType === GGUF_TYPE.array) throw new Error(`${this.source}: ${what} is an array of arrays, which this reader does not read`);
    const count = this.u64(`${what}'s length`);
    // Every item takes a byte at least: a count past the file's end is a damaged header, not an array to allocate.
    this.need(count, `${what}'s ${count} items`);
    const items: Scalar[] = new Array<Scalar>(count);
    for (let i = 0; i < count; i++) items[i] = this.scalar(itemType, what);
    return { type, itemType, items };
  }
}

/** Parse a GGUF file held in memory; `source` names it in errors. */
export function parseGguf(bytes: Buffer, source = 'the file'): GgufFile {
  const r = new Reader(bytes, source);
  if (bytes.length < 4 || bytes.readUInt32LE(0) !== MAGIC) throw new Error(`${source} is not a GGUF file (expected it to start with "GGUF")`);
  r.at = 4;
  const version = r.u32('the version');
  if (version !== 2 && version !== 3) throw new Error(`${source} is GGUF version ${version}; expected 2 or 3`);
  const tensorCount = r.u64('the tensor count');
  const kvCount = r.u64('the metadata count');
  const metadata = new Map<string, GgufValue>();
  for (let i = 0; i < kvCount; i++) {
    const key = r.string(`metadata key ${i}`);
    metadata.set(key, r.value(key));
  }
  const tensors: GgufTensorInfo[] = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = r.string(`tensor ${i}'s name`);
    const nDims = r.u32(`${name}'s dimension count`);
    const dims = Array.from({ length: nDims }, (_, d) => r.u64(`${name}'s dimension ${d}`));
    tensors.push({ name, dims, type: r.u32(`${name}'s type`), offset: r.u64(`${name}'s offset`) });
  }
  const alignmentValue = metadata.get('general.alignment');
  const alignment = alignmentValue && 'value' in alignmentValue ? Number(alignmentValue.value) : DEFAULT_ALIGNMENT;
  if (!Number.isInteger(alignment) || alignment <= 0 || (alignment & (alignment - 1)) !== 0) {
    throw new Error(`${source}: general.alignment is ${String(alignment)}; expected a power of two`);
  }
  const dataOffset = alignUp(r.at, alignment);
  const file: GgufFile = { version, metadata, tensors, alignment, bytes, dataOffset };
  checkTensorBounds(file, source);
  return file;
}

/** Each tensor lies inside the file, aligned, and clear of the next. */
function checkTensorBounds(file: GgufFile, source: string): void {
  const byOffset = [...file.tensors].sort((a, b) => a.offset - b.offset);
  byOffset.forEach((t, i) => {
    const end = t.offset + tensorSize(t);
    const next = byOffset[i + 1];
    if (t.offset % file.alignment !== 0) throw new Error(`${source}: tensor ${t.name} starts at ${t.offset}, not a multiple of the alignment ${file.alignment}`);
    if (next && end > next.offset) throw new Error(`${source}: tensor ${t.name} (${tensorSize(t)} bytes) runs over ${next.name}`);
    if (file.dataOffset + end > file.bytes.length) throw new Error(`${source} is cut short: tensor ${t.name} needs bytes up to ${file.dataOffset + end}, the file has ${file.bytes.length}`);
  });
}

/** The bytes of one tensor of a parsed file (a view, not a copy). */
export function tensorBytes(file: GgufFile, tensor: GgufTensorInfo): Buffer {
  const start = file.dataOffset + tensor.offset;
  return file.bytes.subarray(start, start + tensorSize(tensor));
}

/** Bytes of the header's parts, written as the spec lays them out. */
class Writer {
  private readonly chunks: Buffer[] = [];
  length = 0;

  private push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  u32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.push(b);
  }

  u64(v: number | bigint): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    this.push(b);
  }

  string(text: string): void {
    const b = Buffer.from(text, 'utf8');
    this.u64(b.length);
    this.push(b);
  }

  scalar(type: number, v: Scalar): void {
    const fixed = (n: number, write: (b: Buffer) => void) => {
      const b = Buffer.alloc(n);
      write(b);
      this.push(b);
    };
    switch (type) {
      case GGUF_TYPE.u8: return fixed(1, (b) => b.writeUInt8(Number(v)));
      case GGUF_TYPE.i8: return fixed(1, (b) => b.writeInt8(Number(v)));
      case GGUF_TYPE.u16: return fixed(2, (b) => b.writeUInt16LE(Number(v)));
      case GGUF_TYPE.i16: return fixed(2, (b) => b.writeInt16LE(Number(v)));
      case GGUF_TYPE.u32: return fixed(4, (b) => b.writeUInt32LE(Number(v)));
      case GGUF_TYPE.i32: return fixed(4, (b) => b.writeInt32LE(Number(v)));
      case GGUF_TYPE.f32: return fixed(4, (b) => b.writeFloatLE(Number(v)));
      case GGUF_TYPE.bool: return fixed(1, (b) => b.writeUInt8(v ? 1 : 0));
      case GGUF_TYPE.string: return this.string(String(v));
      case GGUF_TYPE.u64: return fixed(8, (b) => b.writeBigUInt64LE(BigInt(v)));
      case GGUF_TYPE.i64: return fixed(8, (b) => b.writeBigInt64LE(BigInt(v)));
      case GGUF_TYPE.f64: return fixed(8, (b) => b.writeDoubleLE(Number(v)));
      default: throw new Error(`cannot write GGUF value type ${type}`);
    }
  }

  value(v: GgufValue): void {
    this.u32(v.type);
    if ('items' in v) {
      this.u32(v.itemType);
      this.u64(v.items.length);
      for (const item of v.items) this.scalar(v.itemType, item);
    } else this.scalar(v.type, v.value);
  }

  pad(alignment: number): void {
    const padded = alignUp(this.length, alignment);
    if (padded > this.length) this.push(Buffer.alloc(padded - this.length));
  }

  done(): Buffer {
    return Buffer.concat(this.chunks, this.length);
  }
}

/** A tensor to write: its info but its offset (the writer lays the data out), and its bytes. */
export interface GgufTensorOut {
  readonly name: string;
  readonly dims: readonly number[];
  readonly type: number;
  readonly data: Buffer;
}

/**
 * The chunks of a GGUF file (version 3) holding `metadata` and `tensors`, in their order,
 * each tensor aligned: the header first, then each tensor's bytes and its padding. Written
 * in chunks so a model's tensors are never copied into one buffer.
 */
export function ggufChunks(metadata: ReadonlyMap<string, GgufValue>, tensors: readonly GgufTensorOut[], alignment = DEFAULT_ALIGNMENT): Buffer[] {
  const header = new Writer();
  header.u32(MAGIC);
  header.u32(3);
  header.u64(tensors.length);
  header.u64(metadata.size);
  for (const [key, value] of metadata) {
    header.string(key);
    header.value(value);
  }
  let offset = 0;
  for (const t of tensors) {
    if (t.data.length !== tensorSize(t)) throw new Error(`tensor ${t.name}: ${t.data.length} bytes given, its shape and type need ${tensorSize(t)}`);
    header.string(t.name);
    header.u32(t.dims.length);
    for (const d of t.dims) header.u64(d);
    header.u32(t.type);
    header.u64(offset);
    offset = alignUp(offset + t.data.length, alignment);
  }
  header.pad(alignment);
  const chunks = [header.done()];
  for (const t of tensors) {
    chunks.push(t.data);
    const padding = alignUp(t.data.length, alignment) - t.data.length;
    if (padding > 0) chunks.push(Buffer.alloc(padding));
  }
  return chunks;
}
