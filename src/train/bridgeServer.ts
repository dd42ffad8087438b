/**
 * The Python package's wire (python/hillmind/_bridge.py speaks the other end), over the
 * child's standard input and output: frames of a little-endian u32 length, then the
 * payload, whose first byte is the operation.
 *
 *   1 HELLO  JSON options (protocol, level, envs, opponent, reward, scenarioStart)
 *            -> 1, JSON spec (BridgeSpec)
 *   2 RESET  JSON { seeds, envs? }     -> 2, u32 n, n bytes of JSON {}, float32 observations
 *   3 STEP   float64 actions           -> 3, u32 n, n bytes of JSON { ends }, float32
 *            observations, float32 rewards, u8 terminations (a win), u8 truncations
 *            (the time limit)
 *   4 CLOSE                            (the child closes its matches and exits; so
 *                                      it does when its input ends)
 *   Any failure answers 255 with JSON { error }, and the child goes on; a refused request
 *   changes nothing. A frame is checked whole (a step is exactly its actions), and one
 *   longer than the largest request is refused when its header arrives, its bytes skipped.
 *
 * Raw arrays (no encoding step on either side: numpy reads them in place), JSON for the
 * rest. Actions go as float64, the simulation's own precision, so actions a Node team
 * played replay exactly; observations come back as the float32 the policies read. Frames
 * are answered in order, one at a time.
 */
import type { Readable, Writable } from 'node:stream';
import { z } from 'zod';
import type { Platform } from '../teams';
import { BRIDGE_LEVELS, BRIDGE_PROTOCOL, BridgeEnvs } from './bridgeEnv';
import { MODEL_NAMES } from './scenarios';

export const OP = { hello: 1, reset: 2, step: 3, close: 4, error: 255 } as const;
/**
 * The largest JSON request (hello, reset) a bridge reads: a reset of 4096 environments by
 * number with 4096 seeds is under 100 KiB. A step's frame is exactly its actions' size, so
 * any frame longer than both is refused when its header arrives, never buffered.
 */
const JSON_FRAME_LIMIT = 1024 * 1024;

const helloSchema = z.object({
  protocol: z.literal(BRIDGE_PROTOCOL, {
    error: (issue) => `the Python package speaks protocol ${String(issue.input)}; this Hillmind speaks ${BRIDGE_PROTOCOL}: install the package from this checkout`,
  }),
  level: z.enum(BRIDGE_LEVELS),
  envs: z.number().int(),
  opponent: z.string().nullable(),
  reward: z.enum(['match', ...MODEL_NAMES]),
  scenarioStart: z.boolean().optional(),
});
const SEED_MAX = 2 ** 32 - 1;
const resetSchema = z.object({
  seeds: z.array(z.number().refine((n) => Number.isInteger(n) && n >= 0 && n <= SEED_MAX, `a seed is a whole number from 0 to ${SEED_MAX}`)),
  envs: z.array(z.number()).optional(),
});

/** A JSON request checked whole against its schema; the error names the request and what is wrong. */
function request<T>(what: string, body: Buffer, schema: z.ZodType<T>): T {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new Error(`${what}: not JSON (${(err as Error).message})`);
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  throw new Error(`${what}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
}

function frame(op: number, ...parts: (Uint8Array | string)[]): Buffer {
  const bytes = parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
  const length = 1 + bytes.reduce((n, b) => n + b.length, 0);
  const head = Buffer.alloc(5);
  head.writeUInt32LE(length, 0);
  head.writeUInt8(op, 4);
  return Buffer.concat([head, ...bytes]);
}

/** A JSON part preceded by its u32 length. */
function sized(json: unknown): Buffer {
  const text = Buffer.from(JSON.stringify(json), 'utf8');
  const n = Buffer.alloc(4);
  n.writeUInt32LE(text.length, 0);
  return Buffer.concat([n, text]);
}

/** A frame read from the input: its operation and body, or (body null) one refused unread for its length. */
type Frame = { readonly length: number; readonly op: number; readonly body: Buffer } | { readonly length: number; readonly body: null };

/**
 * The frames of `input` in order. A frame's bytes are copied once, however many chunks they
 * came in; a frame of no bytes, or longer than `maxLength()` (asked as each header arrives),
 * is yielded with a null body at once and its bytes are dropped as they come.
 */
async function* readFrames(input: AsyncIterable<Buffer>, maxLength: () => number): AsyncGenerator<Frame> {
  let chunks: Buffer[] = [];
  let buffered = 0;
  let skip = 0;
  let length: number | null = null; // of the frame whose header has been read
  const take = (n: number): Buffer => {
    const whole = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, buffered);
    chunks = whole.length > n ? [whole.subarray(n)] : [];
    buffered -= n;
    return whole.subarray(0, n);
  };
  for await (const chunk of input) {
    const dropped = Math.min(skip, chunk.length);
    skip -= dropped;
    if (dropped === chunk.length) continue;
    chunks.push(chunk.subarray(dropped));
    buffered += chunk.length - dropped;
    for (;;) {
      if (length === null) {
        if (buffered < 4) break;
        length = take(4).readUInt32LE(0);
        if (length === 0 || length > maxLength()) {
          yield { length, body: null };
          const now = Math.min(length, buffered);
          take(now);
          skip = length - now;
          length = null;
          continue;
        }
      }
      if (buffered < length) break;
      const bytes = take(length);
      length = null;
      yield { length: bytes.length, op: bytes.readUInt8(0), body: bytes.subarray(1) };
    }
  }
}

/** Serve frames from `input` until CLOSE or its end; resolves then, with every match it opened closed. */
export async function serveBridge(
  platform: Platform,
  input: Readable,
  output: Writable,
  versions: { readonly obs: number; readonly action: number },
): Promise<void> {
  let envs: BridgeEnvs | null = null;
  const send = (buffer: Buffer) => output.write(buffer);
  /** The bytes of a step's actions: every environment's agents' action numbers as float64. */
  const stepBytes = (spec: BridgeEnvs['spec']) => spec.envs * spec.agents.length * spec.actionSize * 8;
  const maxLength = () => Math.max(JSON_FRAME_LIMIT, envs ? 1 + stepBytes(envs.spec) : 0);
  const handle = async (op: number, body: Buffer): Promise<boolean> => {
    try {
      if (op === OP.close) return false;
      if (op === OP.hello) {
        if (envs) throw new Error('hello twice: a bridge serves the environments of its first hello');
        const { protocol: _, ...options } = request('hello', body, helloSchema);
        envs = new BridgeEnvs(platform, options, versions);
        send(frame(OP.hello, JSON.stringify(envs.spec)));
      } else if (op === OP.reset) {
        if (!envs) throw new Error('reset before hello');
        const { seeds, envs: which } = request('reset', body, resetSchema);
        const obs = await envs.reset(seeds, which);
        send(frame(OP.reset, sized({}), new Uint8Array(obs.buffer)));
      } else if (op === OP.step) {
        if (!envs) throw new Error('step before hello');
        const bytes = stepBytes(envs.spec);
        if (body.length !== bytes) throw new Error(`a step carries ${bytes / 8} float64 actions (${bytes} bytes), got ${body.length} bytes`);
        const copy = new Uint8Array(body); // aligned for the float64 view
        const result = await envs.step(new Float64Array(copy.buffer, 0, copy.length / 8));
        send(frame(OP.step, sized({ ends: result.ends }), new Uint8Array(result.obs.buffer), new Uint8Array(result.rewards.buffer), result.terminations, result.truncations));
      } else throw new Error(`unknown operation ${op}`);
    } catch (err) {
      send(frame(OP.error, JSON.stringify({ error: err instanceof Error ? err.message : String(err) })));
    }
    return true;
  };
  try {
    for await (const f of readFrames(input, maxLength)) {
      if (f.body === null) {
        const why = f.length === 0 ? 'every frame holds at least its operation' : `this bridge reads frames of at most ${maxLength()} bytes (its largest request)`;
        send(frame(OP.error, JSON.stringify({ error: `a frame of ${f.length} bytes: ${why}` })));
      } else if (!(await handle(f.op, f.body))) return;
    }
  } finally {
    // CLOSE, the input's end (the Python side gone) or a failed read: the matches are done with.
    (envs as BridgeEnvs | null)?.close();
  }
}
