/**
 * The Python package's wire (python/hillmind/_bridge.py speaks the other end), over the
 * child's standard input and output: frames of a little-endian u32 length, then the
 * payload, whose first byte is the operation.
 *
 *   1 HELLO  JSON options (protocol, level, envs, opponent, reward, scenarioStart)
 *            -> 1, JSON spec (BridgeSpec)
 *   2 RESET  JSON { seeds, envs? }     -> 2, u32 n, n bytes of JSON {}, float32 observations
 *   3 STEP   float64 actions           -> 3, u32 n, n bytes of JSON { ends }, float32
 *            observations, float32 rewards, u8 terminations
 *   4 CLOSE                            (the child exits)
 *   Any failure answers 255 with JSON { error }, and the child goes on.
 *
 * Raw arrays (no encoding step on either side: numpy reads them in place), JSON for the
 * rest. Actions go as float64, the simulation's own precision, so actions a Node team
 * played replay exactly; observations come back as the float32 the policies read. Frames are answered in order, one at a time.
 */
import type { Readable, Writable } from 'node:stream';
import type { Platform } from '../teams';
import { type BridgeOptions, BridgeEnvs } from './bridgeEnv';

export const OP = { hello: 1, reset: 2, step: 3, close: 4, error: 255 } as const;
/** The largest frame the child reads: 4096 envs x 4 agents x 5 float32 is 320 KiB. */
const MAX_FRAME = 64 * 1024 * 1024;

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

/** Serve frames from `input` until CLOSE or its end; resolves then. */
export async function serveBridge(
  platform: Platform,
  input: Readable,
  output: Writable,
  versions: { readonly obs: number; readonly action: number },
): Promise<void> {
  let envs: BridgeEnvs | null = null;
  let pending: Buffer = Buffer.alloc(0);
  const send = (buffer: Buffer) => output.write(buffer);
  const handle = async (op: number, body: Buffer): Promise<boolean> => {
    try {
      if (op === OP.close) return false;
      if (op === OP.hello) {
        const options = JSON.parse(body.toString('utf8')) as BridgeOptions & { protocol?: number };
        envs = new BridgeEnvs(platform, options, versions);
        if (options.protocol !== envs.spec.protocol) throw new Error(`the Python package speaks protocol ${options.protocol}; this Hillmind speaks ${envs.spec.protocol}: install the package from this checkout`);
        send(frame(OP.hello, JSON.stringify(envs.spec)));
      } else if (op === OP.reset) {
        if (!envs) throw new Error('reset before hello');
        const { seeds, envs: which } = JSON.parse(body.toString('utf8')) as { seeds: number[]; envs?: number[] };
        const obs = await envs.reset(seeds, which);
        send(frame(OP.reset, sized({}), new Uint8Array(obs.buffer)));
      } else if (op === OP.step) {
        if (!envs) throw new Error('step before hello');
        const copy = new Uint8Array(body); // aligned for the float64 view
        const result = await envs.step(new Float64Array(copy.buffer, 0, copy.length / 8));
        send(frame(OP.step, sized({ ends: result.ends }), new Uint8Array(result.obs.buffer), new Uint8Array(result.rewards.buffer), result.terminations));
      } else throw new Error(`unknown operation ${op}`);
    } catch (err) {
      send(frame(OP.error, JSON.stringify({ error: err instanceof Error ? err.message : String(err) })));
    }
    return true;
  };
  for await (const chunk of input) {
    pending = pending.length ? Buffer.concat([pending, chunk as Buffer]) : (chunk as Buffer);
    while (pending.length >= 4) {
      const length = pending.readUInt32LE(0);
      if (length < 1 || length > MAX_FRAME) throw new Error(`a frame of ${length} bytes: expected 1 to ${MAX_FRAME}`);
      if (pending.length < 4 + length) break;
      const op = pending.readUInt8(4);
      const body = pending.subarray(5, 4 + length);
      pending = pending.subarray(4 + length);
      if (!(await handle(op, body))) return;
    }
  }
}
