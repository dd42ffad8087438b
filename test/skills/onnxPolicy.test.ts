import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import onnxProto from 'onnx-proto';
import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Action, ACTION_SPEC_VERSION, DEFAULT_CONFIG, OBS_SIZE, OBS_SPEC_VERSION, Rng, idleAction } from '../../src/sim';
import { ModelLibrary } from '../../src/skills/modelSource';
import { type ModelCard, parseModelCard } from '../../src/skills/modelCard';
import { missingModelMessage, modelDirFrom, nodeModelSource } from '../../src/skills/nodeModels';
import { loadOnnxPolicy, outputsToActions } from '../../src/skills/onnxPolicy';
import { skillContext } from '../../src/skills/policy';
import { sha256Hex } from '../../src/skills/sha256';
import { exportModel } from '../../src/train/artifacts';
import { exportPolicyOnnx, referenceForward } from '../../src/train/onnxExport';
import type { PolicyState } from '../../src/train/ppo';
import { exportInfo, sampleObservations, tempDir, tinyState } from '../train/fixtures';

// One thread: the threaded wasm build would start workers that keep the process alive.
ortWeb.env.wasm.numThreads = 1;

const tmp = tempDir('onnx-policy');
const dir = join(tmp.path, 'models');
let state: PolicyState;
let card: ModelCard;
let bytes: Uint8Array;
const modelPath = join(dir, 'combat.onnx');
const cardPath = join(dir, 'combat.json');

const reference = (obs: Float32Array, count: number) => referenceForward({ mlp: state.policy, ...state.normalizer.snapshot() }, obs, count);
const actionsOf = (count: number): Action[] => Array.from({ length: count }, () => idleAction());
const context = skillContext(DEFAULT_CONFIG);

beforeAll(async () => {
  state = tinyState(3);
  card = await exportModel(dir, state, exportInfo('combat'));
  bytes = new Uint8Array(readFileSync(modelPath));
});

afterAll(() => tmp.remove());

describe('nodeModelSource', () => {
  it('loads <dir>/<name>.onnx with its card into a Policy that acts as the reference network says', async () => {
    const source = nodeModelSource(dir);
    expect(source.where).toBe(`${dir}/`);
    const policy = await source.load('combat');
    expect(policy.name).toBe('combat');
    expect(policy.kind).toBe('onnx');
    const n = 64;
    const obs = sampleObservations(n, 21);
    const got = actionsOf(n);
    await policy.act(obs, n, got, context);
    const ref = reference(obs, n);
    const want = actionsOf(n);
    outputsToActions(ref, n, want);
    // The documented play rule: the means clamped to [-1, 1], dash/fire on when the logit is positive.
    const clamp = (v: number) => Math.max(-1, Math.min(1, v));
    for (let i = 0; i < n; i++) {
      const o = i * 5;
      expect(want[i]).toEqual({ move: clamp(ref[o]!), turn: clamp(ref[o + 1]!), strafe: clamp(ref[o + 2]!), dash: ref[o + 3]! > 0 ? 1 : 0, fire: ref[o + 4]! > 0 ? 1 : 0 });
    }
    for (let i = 0; i < n; i++) {
      for (const key of ['move', 'turn', 'strafe'] as const) expect(Math.abs(got[i]![key] - want[i]![key]), `${key} ${i}`).toBeLessThan(1e-5);
      // Binary parts agree wherever the logit is not within float noise of 0.
      if (Math.abs(ref[i * 5 + 3]!) > 1e-4) expect(got[i]!.dash, `dash ${i}`).toBe(want[i]!.dash);
      if (Math.abs(ref[i * 5 + 4]!) > 1e-4) expect(got[i]!.fire, `fire ${i}`).toBe(want[i]!.fire);
    }
    // The fixture exercises both sides of every threshold and the clamp.
    expect(new Set(want.map((a) => a.fire))).toEqual(new Set([0, 1]));
    expect(new Set(want.map((a) => a.dash))).toEqual(new Set([0, 1]));
    expect(Array.from(ref).some((v, i) => i % 5 < 3 && Math.abs(v) > 1)).toBe(true);
    expect(want.every((a) => Math.abs(a.move) <= 1 && Math.abs(a.turn) <= 1 && Math.abs(a.strafe) <= 1)).toBe(true);
  });

  it('acts on only `count` observations of a longer buffer', async () => {
    const policy = await nodeModelSource(dir).load('combat');
    const obs = sampleObservations(6, 5);
    const three = actionsOf(3);
    await policy.act(obs, 3, three, context);
    const alone = actionsOf(3);
    await policy.act(obs.slice(0, 3 * OBS_SIZE), 3, alone, context);
    expect(three).toEqual(alone);
  });

  it('a missing model names the path, the folder HILLMIND_MODELS chose, the shipped models, and training last', async () => {
    const source = nodeModelSource(dir);
    await expect(source.load('retreat')).rejects.toThrow(`${join(dir, 'retreat.onnx')} is missing: the model folder is ${dir} (HILLMIND_MODELS chooses it)`);
    const lonely = join(tmp.path, 'lonely');
    mkdirSync(lonely, { recursive: true });
    copyFileSync(modelPath, join(lonely, 'combat.onnx'));
    await expect(nodeModelSource(lonely).load('combat')).rejects.toThrow(`${join(lonely, 'combat.json')} is missing`);

    // HILLMIND_MODELS at an empty folder: the message says so and points at the shipped models, not at a 39-minute retrain.
    const empty = join(tmp.path, 'empty');
    mkdirSync(empty, { recursive: true });
    const why = (await new ModelLibrary(nodeModelSource(modelDirFrom({ HILLMIND_MODELS: empty }))).unavailable('navigate'))!;
    expect(why).toBe(
      `${join(empty, 'navigate.onnx')} is missing: the model folder is ${empty} (HILLMIND_MODELS chooses it). ` +
        `The shipped models are in models/: unset HILLMIND_MODELS to use them. As a last resort, train it with npm run train -- --skill navigate --out ${empty}`,
    );
    expect(existsSync(join('models', 'navigate.onnx'))).toBe(true); // what unsetting it gives
    // The shipped folder itself missing a file: restore it first, train last.
    expect(missingModelMessage('models', 'navigate', 'models/navigate.onnx')).toBe(
      'models/navigate.onnx is missing from the shipped models in models/: restore the folder (git checkout models/); as a last resort, train it with npm run train -- --skill navigate',
    );
  });

  it('a corrupted model file fails with a message naming the file', async () => {
    const rng = new Rng(17);
    const cases: [string, Uint8Array][] = [
      ['truncated', bytes.slice(0, Math.floor(bytes.length / 2))],
      ['random', Uint8Array.from({ length: bytes.length }, () => Math.floor(rng.next() * 256))],
      ['empty', new Uint8Array(0)],
    ];
    for (const [name, bad] of cases) {
      const d = join(tmp.path, `corrupt-${name}`);
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, 'combat.onnx'), bad);
      copyFileSync(cardPath, join(d, 'combat.json'));
      const path = join(d, 'combat.onnx').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      await expect(nodeModelSource(d).load('combat'), name).rejects.toThrow(new RegExp(`^${path} is not the model its card describes: its SHA-256 is [0-9a-f]{64}, the card says ${card.sha256}`));
      expect(await new ModelLibrary(nodeModelSource(d)).unavailable('combat'), name).toMatch(/is not the model its card describes/);
    }
  });

  it('a malformed card names the field', async () => {
    const good = JSON.parse(readFileSync(cardPath, 'utf8')) as Record<string, unknown>;
    const cases: [string, unknown, RegExp][] = [
      ['bad-shape', { ...good, io: { ...(good.io as object), inputShape: ['batch', '20'] } }, /combat\.json is not a valid model card at io\.inputShape\.1: /],
      ['no-probe', { ...good, probe: undefined }, /combat\.json is not a valid model card at probe: /],
      ['bad-kind', { ...good, kind: 'strategist' }, /combat\.json is not a valid model card at kind: /],
      ['wrong-format', { ...good, format: 'something-else' }, /combat\.json is not a valid model card at format: /],
    ];
    for (const [name, json, message] of cases) {
      const d = join(tmp.path, `card-${name}`);
      mkdirSync(d, { recursive: true });
      copyFileSync(modelPath, join(d, 'combat.onnx'));
      writeFileSync(join(d, 'combat.json'), JSON.stringify(json));
      await expect(nodeModelSource(d).load('combat'), name).rejects.toThrow(message);
    }
    expect(() => parseModelCard('{"format": ', 'x/combat.json')).toThrow(/^x\/combat\.json is not valid JSON: /);
  });
});

describe('loadOnnxPolicy', () => {
  it('plays through the TypeScript network alone, within 1e-5 of onnxruntime-node, onnxruntime-web and the JS reference', async () => {
    // onnxruntime is the reference here, and only here: the product loads no ONNX engine.
    const policy = loadOnnxPolicy(bytes, card, modelPath);
    const nodeSession = await ortNode.InferenceSession.create(bytes);
    const webSession = await ortWeb.InferenceSession.create(bytes);
    try {
      // The card's probe (the trainer's reference outputs) is what onnxruntime computes too.
      const probeIn = Float32Array.from(card.probe.inputs.flat());
      const probeOut = (await nodeSession.run({ obs: new ortNode.Tensor('float32', probeIn, [card.probe.inputs.length, OBS_SIZE]) })).action_mean!.data as Float32Array;
      expect(Array.from(probeOut).every((v, i) => Math.abs(v - card.probe.outputs.flat()[i]!) <= 1e-5)).toBe(true);
      for (const n of [1, 37]) {
        const obs = sampleObservations(n, 40 + n);
        const played = actionsOf(n);
        policy.act(obs, n, played, context);
        const ref = reference(obs, n);
        expect(ref.some((v) => Math.abs(v) > 0.5)).toBe(true);
        const nodeOut = (await nodeSession.run({ obs: new ortNode.Tensor('float32', obs, [n, OBS_SIZE]) })).action_mean!.data as Float32Array;
        const webOut = (await webSession.run({ obs: new ortWeb.Tensor('float32', obs, [n, OBS_SIZE]) })).action_mean!.data as Float32Array;
        const refActions = actionsOf(n);
        outputsToActions(ref, n, refActions);
        played.forEach((a, i) => {
          (['move', 'turn', 'strafe'] as const).forEach((key, k) => {
            expect(Math.abs(a[key] - refActions[i]![key]), `${key} ${i}`).toBeLessThan(1e-5);
            expect(Math.abs(a[key] - Math.max(-1, Math.min(1, nodeOut[i * 5 + k]!))), `node ${key} ${i}`).toBeLessThan(1e-5);
            expect(Math.abs(a[key] - Math.max(-1, Math.min(1, webOut[i * 5 + k]!))), `web ${key} ${i}`).toBeLessThan(1e-5);
          });
        });
      }
    } finally {
      await nodeSession.release();
      await webSession.release();
    }
  });

  it('refuses a network that reads or writes other names than its card, naming them', () => {
    const { onnx } = onnxProto;
    const model = onnx.ModelProto.decode(bytes);
    const graph = model.graph!;
    graph.input![0]!.name = 'observation';
    graph.node![0]!.input![0] = 'observation';
    const renamed = new Uint8Array(onnx.ModelProto.encode(model).finish());
    expect(() => loadOnnxPolicy(renamed, { ...card, sha256: sha256Hex(renamed) }, modelPath)).toThrow(
      `${modelPath} has inputs [observation] and outputs [action_mean] (its first node reads 'observation', its last writes 'action_mean'); expected input 'obs' and output 'action_mean'`,
    );
  });

  it('refuses a card for another observation or action spec, naming it and how to retrain', () => {
    const obsCard = { ...card, obsSpecVersion: OBS_SPEC_VERSION + 1 };
    expect(() => loadOnnxPolicy(bytes, obsCard, modelPath)).toThrow(
      `${modelPath} does not fit this build: observation spec v${OBS_SPEC_VERSION + 1}, this build uses v${OBS_SPEC_VERSION}. Retrain it (npm run train -- --skill combat`,
    );
    const actCard = { ...card, actionSpecVersion: ACTION_SPEC_VERSION + 1 };
    expect(() => loadOnnxPolicy(bytes, actCard, modelPath)).toThrow(/does not fit this build: action spec v2, this build uses v1/);
    const outCard = { ...card, io: { ...card.io, outputShape: ['batch', 4] as [string, number] } };
    expect(() => loadOnnxPolicy(bytes, outCard, modelPath)).toThrow(/output action_mean\[batch, 4\], expected action_mean\[batch, 5\]/);
  });

  it('a valid model that is not the one its card describes fails its digest, and the probe', () => {
    const other = tinyState(9);
    const otherBytes = exportPolicyOnnx({ mlp: other.policy, ...other.normalizer.snapshot() });
    expect(() => loadOnnxPolicy(otherBytes, card, modelPath)).toThrow(
      new RegExp(`^${modelPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not the model its card describes: its SHA-256 is `),
    );
    expect(() => loadOnnxPolicy(otherBytes, { ...card, sha256: sha256Hex(otherBytes) }, modelPath)).toThrow(
      new RegExp(`^${modelPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} does not reproduce its card's probe \\(output \\d+: `),
    );
    // A card whose probe was edited fails the same way with the right model.
    const edited = { ...card, probe: { ...card.probe, outputs: card.probe.outputs.map((r, i) => (i === 3 ? r.map((v) => v + 0.01) : r)) } };
    expect(() => loadOnnxPolicy(bytes, edited, modelPath)).toThrow(/does not reproduce its card's probe \(output 15: /);
  });
});

describe('model digests', () => {
  it('one flipped bit in a weight (a change of about 1e-8) is refused by the digest, which the probe alone lets through', () => {
    const weight = state.policy.params[state.policy.params.length - 40]!;
    const at = Buffer.from(bytes).indexOf(Buffer.from(new Float32Array([weight]).buffer));
    expect(at).toBeGreaterThan(0);
    const flipped = Uint8Array.from(bytes);
    flipped[at] = flipped[at]! ^ 1; // the lowest mantissa bit
    const changed = new Float32Array(flipped.slice(at, at + 4).buffer)[0]!;
    expect(Math.abs(changed - weight)).toBeGreaterThan(0);
    expect(Math.abs(changed - weight)).toBeLessThan(1e-7);
    expect(() => loadOnnxPolicy(flipped, card, modelPath)).toThrow(
      `${modelPath} is not the model its card describes: its SHA-256 is ${sha256Hex(flipped)}, the card says ${card.sha256}; the file is corrupted or was replaced`,
    );
    // What the digest catches: with it out of the way the probe still reproduces.
    expect(loadOnnxPolicy(flipped, { ...card, sha256: sha256Hex(flipped) }, modelPath)).toMatchObject({ name: 'combat' });
  });

  it('every shipped card carries the SHA-256 of its committed model', () => {
    for (const name of ['navigate', 'combat', 'secure', 'retreat', 'flat']) {
      const shipped = parseModelCard(readFileSync(join('models', `${name}.json`), 'utf8'), name);
      expect(shipped.sha256, name).toBe(createHash('sha256').update(readFileSync(join('models', `${name}.onnx`))).digest('hex'));
    }
  });

  it('sha256Hex is SHA-256', () => {
    expect(sha256Hex(new Uint8Array(0))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex(new TextEncoder().encode('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const rng = new Rng(3);
    for (const n of [55, 56, 63, 64, 65, 1000]) {
      const data = Uint8Array.from({ length: n }, () => Math.floor(rng.next() * 256));
      expect(sha256Hex(data), String(n)).toBe(createHash('sha256').update(data).digest('hex'));
    }
  });
});

describe('the model library', () => {
  it('without a source, loading and the probe say no models are available and how to train', async () => {
    const none = new ModelLibrary(null);
    const message =
      "no trained models are available here: model 'navigate' cannot load (the shipped models are in models/, where HILLMIND_MODELS is unset; as a last resort, train it with npm run train -- --skill navigate)";
    await expect(none.load('navigate')).rejects.toThrow(message);
    expect(await none.unavailable('navigate')).toBe(message);
  });

  it('does not cache a failure: a model added later loads; the probe and the fingerprint follow the files', async () => {
    const later = join(tmp.path, 'later');
    mkdirSync(later, { recursive: true });
    const library = new ModelLibrary(nodeModelSource(later));
    await expect(library.load('secure')).rejects.toThrow(/secure\.onnx is missing/);
    expect(await library.unavailable('secure')).toMatch(/secure\.onnx is missing/);
    expect(library.fingerprint('secure')).toBeNull();
    await exportModel(later, tinyState(5), exportInfo('secure'));
    expect(await library.unavailable('secure')).toBeNull();
    expect(library.fingerprint('secure')).toMatch(/^[0-9a-f]{16}$/);
    const policy = await library.load('secure');
    expect(policy.name).toBe('secure');
    expect(await library.load('secure')).toBe(policy); // loaded once, then cached
  });
});
