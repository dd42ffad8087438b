/**
 * The Node end of the Python package's wire (src/train/bridgeServer.ts, bridgeEnv.ts): a
 * refused call changes nothing, a frame is checked whole, and an oversize frame is refused
 * as soon as its header arrives and skipped without being buffered.
 */
import { Readable, Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Match } from '../../src/match';
import { BRIDGE_PROTOCOL, BridgeEnvs, type BridgeOptions } from '../../src/train/bridgeEnv';
import { OP, serveBridge } from '../../src/train/bridgeServer';
import { TEST_PLATFORM } from '../helpers/platform';

const VERSIONS = { obs: 1, action: 1 };
const STRATEGIST: BridgeOptions = { level: 'strategist', envs: 4, opponent: 'bt-scripted', reward: 'match' };
const CONTROL: BridgeOptions = { level: 'control', envs: 1, opponent: 'heuristic', reward: 'match' };

function frame(op: number, body: Uint8Array | string = new Uint8Array(0)): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  const head = Buffer.alloc(5);
  head.writeUInt32LE(bytes.length + 1, 0);
  head.writeUInt8(op, 4);
  return Buffer.concat([head, bytes]);
}

const hello = (options: BridgeOptions) => frame(OP.hello, JSON.stringify({ protocol: BRIDGE_PROTOCOL, ...options }));

/** The answers in `bytes`: each frame's operation and body. */
function answers(bytes: Buffer): { op: number; body: Buffer }[] {
  const out: { op: number; body: Buffer }[] = [];
  for (let at = 0; at < bytes.length; ) {
    const length = bytes.readUInt32LE(at);
    out.push({ op: bytes.readUInt8(at + 4), body: bytes.subarray(at + 5, at + 4 + length) });
    at += 4 + length;
  }
  return out;
}
const errorOf = (answer: { op: number; body: Buffer }) => (answer.op === OP.error ? (JSON.parse(answer.body.toString('utf8')) as { error: string }).error : null);

/** Serve `chunks` and collect the answers; `onAnswer` sees how many chunks had been read when each answer was written. */
async function serve(chunks: Iterable<Buffer>, onAnswer: (answer: Buffer) => void = () => {}): Promise<{ op: number; body: Buffer }[]> {
  const written: Buffer[] = [];
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk);
      onAnswer(chunk);
      done();
    },
  });
  await serveBridge(TEST_PLATFORM, Readable.from(chunks, { objectMode: true, highWaterMark: 1 }), output, VERSIONS);
  return answers(Buffer.concat(written));
}

/** Every match opened from now on, and whether it was closed (Match.close, which closes its teams). */
function countMatches(): { readonly opened: number; open: () => number } {
  const opened: Match[] = [];
  const closed = new Set<Match>();
  const create = Match.create.bind(Match);
  const close = Match.prototype.close;
  vi.spyOn(Match, 'create').mockImplementation(async (...args) => {
    const match = await create(...args);
    opened.push(match);
    return match;
  });
  vi.spyOn(Match.prototype, 'close').mockImplementation(function (this: Match) {
    closed.add(this);
    close.call(this);
  });
  return {
    get opened() {
      return opened.length;
    },
    open: () => opened.filter((m) => !closed.has(m)).length,
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the bridge environments', () => {
  it('close the match each reset replaces, and every match when closed', async () => {
    const matches = countMatches();
    const envs = new BridgeEnvs(TEST_PLATFORM, { ...CONTROL, envs: 3 }, VERSIONS);
    await envs.reset([1, 2, 3]);
    expect([matches.opened, matches.open()]).toEqual([3, 3]);
    for (let i = 0; i < 5; i++) await envs.reset([10 + i, 20 + i, 30 + i]);
    await envs.reset([7], [1]); // one environment alone
    expect([matches.opened, matches.open()]).toEqual([19, 3]); // one match open per environment
    envs.close();
    expect(matches.open()).toBe(0);
  });

  it('refuse a vector step with a bad skill in one environment before any environment moves', async () => {
    const envs = new BridgeEnvs(TEST_PLATFORM, STRATEGIST, VERSIONS);
    await envs.reset([7, 7, 7, 7]); // four copies of one match
    await expect(envs.step(new Float64Array([0, 1, 2, 3, 0, 1, 2, 9]))).rejects.toThrow('a skill is a whole number from 0 to 3, got 9 (environment 3, agent 1)');
    await expect(envs.step(new Float64Array([0, 1, 2, 3, 0, 1, 2.5, 0]))).rejects.toThrow('got 2.5 (environment 3, agent 0)');
    // Had environments 0-2 played the refused steps, they would be ahead of environment 3 now.
    const after = await envs.step(new Float64Array([2, 1, 2, 1, 2, 1, 2, 1]));
    const size = after.obs.length / 4;
    for (let e = 1; e < 4; e++) expect(Array.from(after.obs.subarray(e * size, (e + 1) * size))).toEqual(Array.from(after.obs.subarray(0, size)));
  });

  it('end an episode the time limit ends as truncated, and one a team wins as terminated', async () => {
    const idle = new BridgeEnvs(TEST_PLATFORM, { ...CONTROL, opponent: null }, VERSIONS); // four idle agents: nobody takes the zone
    await idle.reset([3]);
    let step = await idle.step(new Float64Array(4 * 5));
    while (!step.ends.length) step = await idle.step(new Float64Array(4 * 5));
    expect(step.ends[0]).toMatchObject({ outcome: 'draw' });
    expect([Array.from(step.terminations), Array.from(step.truncations)]).toEqual([[0, 0, 0, 0], [1, 1, 1, 1]]);
    const waiting = await idle.step(new Float64Array(4 * 5)); // until its reset, it reads as it ended
    expect([Array.from(waiting.terminations), Array.from(waiting.truncations)]).toEqual([[0, 0, 0, 0], [1, 1, 1, 1]]);

    const secure = new BridgeEnvs(TEST_PLATFORM, { ...STRATEGIST, envs: 1, opponent: 'random' }, VERSIONS); // secure and combat against random skills: blue wins (seed 5)
    await secure.reset([5]);
    const plan = new Float64Array([2, 1]);
    step = await secure.step(plan);
    while (!step.ends.length) step = await secure.step(plan);
    expect(step.ends[0]!.outcome).toBe('blue');
    expect([Array.from(step.terminations), Array.from(step.truncations)]).toEqual([[1, 1], [0, 0]]);
  });

  it('refuse a reset of some environments before every environment has started, starting none', async () => {
    const envs = new BridgeEnvs(TEST_PLATFORM, { ...CONTROL, envs: 3 }, VERSIONS);
    await expect(envs.reset([5], [1])).rejects.toThrow('environments 0, 2 have not started: reset every environment (no envs) first');
    await expect(envs.step(new Float64Array(3 * 2 * 5))).rejects.toThrow('step before reset: reset every environment first');
    await expect(envs.reset([5, 6], [1, 1])).rejects.toThrow('environment 1 is named twice');
    await envs.reset([1, 2, 3]);
    await expect(envs.reset([5], [1])).resolves.toHaveLength(3 * 2 * 20);
  });
});

describe('the bridge server', () => {
  it('closes every match it opened when the connection ends, with or without CLOSE', async () => {
    for (const end of [[frame(OP.close)], []]) {
      const matches = countMatches();
      const resets = Array.from({ length: 4 }, (_, i) => frame(OP.reset, JSON.stringify({ seeds: [i, i + 1] })));
      const out = await serve([hello({ ...CONTROL, envs: 2 }), ...resets, ...end]);
      expect(out.map((a) => a.op)).toEqual([OP.hello, OP.reset, OP.reset, OP.reset, OP.reset]);
      expect([matches.opened, matches.open()]).toEqual([8, 0]);
      vi.restoreAllMocks();
    }
  });

  it('refuses a step whose frame has bytes beyond its actions, and serves the next one', async () => {
    const actions = new Uint8Array(new Float64Array(2 * 5).buffer);
    const stray = Buffer.concat([Buffer.from(actions), Buffer.from([1, 2, 3])]);
    const out = await serve([hello(CONTROL), frame(OP.reset, JSON.stringify({ seeds: [1] })), frame(OP.step, stray), frame(OP.step, actions), frame(OP.close)]);
    expect(out.map((a) => a.op)).toEqual([OP.hello, OP.reset, OP.error, OP.step]);
    expect(errorOf(out[2]!)).toBe('a step carries 10 float64 actions (80 bytes), got 83 bytes');
  });

  it('refuses requests that are not what the protocol expects, saying what was expected', async () => {
    const out = await serve([
      frame(OP.reset, JSON.stringify({ seeds: [1] })),
      frame(OP.hello, JSON.stringify({ ...CONTROL, protocol: BRIDGE_PROTOCOL, envs: 'many' })),
      hello(CONTROL),
      frame(OP.reset, JSON.stringify({ seeds: ['one'] })),
      frame(OP.reset, JSON.stringify({ seeds: [-1] })),
      frame(OP.reset, '{"seeds": [1]} xyz'),
      Buffer.from([0, 0, 0, 0]), // a frame without even an operation
      frame(OP.close),
    ]);
    expect(out.map(errorOf)).toEqual([
      'reset before hello',
      expect.stringMatching(/^hello: envs: Invalid input: expected number, received string/),
      null,
      expect.stringMatching(/^reset: seeds\.0: Invalid input: expected number, received string/),
      expect.stringMatching(/^reset: seeds\.0: a seed is a whole number from 0 to 4294967295/),
      expect.stringMatching(/^reset: not JSON/),
      'a frame of 0 bytes: every frame holds at least its operation',
    ]);
  });

  it('refuses an oversize frame as soon as its header arrives, skips its body unbuffered and serves the frames after it', async () => {
    // 8 MiB of step in 64 KiB chunks: a 1-environment bridge reads frames of at most 1 MiB.
    const chunk = Buffer.alloc(64 * 1024);
    const body = 8 * 1024 * 1024;
    let read = 0;
    let readAtRefusal = -1;
    function* input(): Generator<Buffer> {
      yield hello(CONTROL);
      const head = Buffer.alloc(5);
      head.writeUInt32LE(body + 1, 0);
      head.writeUInt8(OP.step, 4);
      yield head;
      for (let i = 0; i < body / chunk.length; i++, read++) yield chunk;
      yield frame(OP.reset, JSON.stringify({ seeds: [4] }));
      yield frame(OP.close);
    }
    const out = await serve(input(), (answer) => {
      if (answer.readUInt8(4) === OP.error && readAtRefusal < 0) readAtRefusal = read;
    });
    expect(out.map((a) => a.op)).toEqual([OP.hello, OP.error, OP.reset]);
    expect(errorOf(out[1]!)).toBe('a frame of 8388609 bytes: this bridge reads frames of at most 1048576 bytes (its largest request)');
    expect(readAtRefusal).toBeLessThanOrEqual(2); // of 128 chunks
  });
});
