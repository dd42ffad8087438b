/**
 * The strategist's derived model (llm/node/derivedModel.ts): the pulled model with its
 * vocabulary cut to the tokens of the strategist's texts. It must read every prompt in the
 * same tokens as the pulled model and give the same answers; its bytes must be the pinned
 * ones (a change to the prompts shows here first, with what to do).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatRequest, type LlmConnection, buildRequest } from '../../src/llm';
import { type Vocabulary, deriveModel, keptTokenIds } from '../../src/llm/node/derivedModel';
import { GGUF_TYPE, type GgufValue, ggufChunks, parseGguf, tensorBytes } from '../../src/llm/node/gguf';
import type { LlamaChatClient } from '../../src/llm/node/llamaClient';
import { nodeLlmAccess } from '../../src/llm/node';
import { LOCAL_MODELS, DEFAULT_LOCAL_MODEL, localModelDir, shippedAdapterPath } from '../../src/llm/localModels';
import { parseLlmSpec } from '../../src/llm/settings';
import { teamSituation } from '../../src/sim';
import { PERSONAS } from '../../src/teams/personas';
import { strategistTexts } from '../../src/teams/strategistTexts';
import { sampleWorlds } from '../../src/bench/strategist';
import { LOCAL_ENGINE_FILE, LOCAL_SPEC, describeWithLocalModel, requireLocalModel } from '../helpers/localModel';

describe('the kept tokens', () => {
  // normal 1, unknown 2, control 3, user-defined 4, byte 6
  const vocabulary: Vocabulary = {
    tokens: ['<pad>', '<eos>', '<unk>', '<start_of_turn>', '<unused0>', '\n', '\n\n', '<0x41>', '▁IN', 'IN', '▁MID', '▁FAR', 'MI', '▁secure', 'cure', 'xyz'],
    types: [3, 3, 2, 3, 3, 4, 4, 6, 1, 1, 1, 1, 1, 1, 1, 1],
    required: [0, 1],
  };
  const keep = (texts: string[]) => keptTokenIds(vocabulary, texts).map((id) => vocabulary.tokens[id]);

  it('are the substrings of the texts (spaces as SentencePiece marks them), the control and user-defined tokens they hold, bytes and the required', () => {
    expect(keep(['<start_of_turn>LOW IN MID\nsecure'])).toEqual(['<pad>', '<eos>', '<unk>', '<start_of_turn>', '\n', '<0x41>', '▁IN', 'IN', '▁MID', 'MI', 'cure']);
  });

  it('grow with the texts, never losing one', () => {
    expect(keep(['x'])).toEqual(['<pad>', '<eos>', '<unk>', '<0x41>']);
    expect(keep(['x', 'go secure\n\nFAR'])).toEqual(['<pad>', '<eos>', '<unk>', '\n', '\n\n', '<0x41>', '▁secure', 'cure']);
  });
});

describe('a derived file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hillmind-derive-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // A toy model: 6 tokens, an embedding of 64 a row (Q8_0: 68 bytes), row i filled with i.
  const tokens = ['<pad>', '<bos>', '\n', '<0x41>', '▁IN', 'xyz'];
  const types = [3, 3, 4, 6, 1, 1];
  const rows = Buffer.concat(tokens.map((_, i) => Buffer.alloc(68, i)));
  const write = (name: string, extra: [string, GgufValue][] = []) => {
    const metadata = new Map<string, GgufValue>([
      ['general.architecture', { type: GGUF_TYPE.string, value: 'toy' }],
      ['toy.vocab_size', { type: GGUF_TYPE.u32, value: tokens.length }],
      ['tokenizer.ggml.model', { type: GGUF_TYPE.string, value: 'llama' }],
      ['tokenizer.ggml.tokens', { type: GGUF_TYPE.array, itemType: GGUF_TYPE.string, items: tokens }],
      ['tokenizer.ggml.scores', { type: GGUF_TYPE.array, itemType: GGUF_TYPE.f32, items: tokens.map((_, i) => -i) }],
      ['tokenizer.ggml.token_type', { type: GGUF_TYPE.array, itemType: GGUF_TYPE.i32, items: types }],
      ['tokenizer.ggml.bos_token_id', { type: GGUF_TYPE.u32, value: 1 }],
      ['tokenizer.ggml.add_space_prefix', { type: GGUF_TYPE.bool, value: false }],
      ...extra,
    ]);
    const path = join(dir, name);
    writeFileSync(path, Buffer.concat(ggufChunks(metadata, [{ name: 'token_embd.weight', dims: [64, tokens.length], type: 8, data: rows }])));
    return path;
  };

  it('keeps the tokens of the texts, their rows, and the ids and counts that name them', () => {
    const made = deriveModel(write('toy.gguf'), join(dir, 'cut.gguf'), ['LOW IN\nLOW'], 'toy');
    // <pad> is in no text and named by no id key; xyz is in no text.
    expect(made.kept).toEqual([1, 2, 3, 4]);
    const cut = parseGguf(readFileSync(join(dir, 'cut.gguf')), 'cut.gguf');
    const value = (key: string) => cut.metadata.get(key);
    expect(value('tokenizer.ggml.tokens')).toMatchObject({ items: ['<bos>', '\n', '<0x41>', '▁IN'] });
    expect(value('tokenizer.ggml.scores')).toMatchObject({ items: [-1, -2, -3, -4] });
    expect(value('toy.vocab_size')).toMatchObject({ value: 4 });
    expect(value('tokenizer.ggml.bos_token_id')).toMatchObject({ value: 0 });
    expect(value('hillmind.derived_from')).toMatchObject({ value: 'toy' });
    const embedding = cut.tensors.find((t) => t.name === 'token_embd.weight')!;
    expect(embedding.dims).toEqual([64, 4]);
    expect(tensorBytes(cut, embedding).equals(rows.subarray(68, 5 * 68))).toBe(true);
  });

  it('is refused for a tokenizer the cut would change, and never takes its name with other bytes than expected', () => {
    expect(() => deriveModel(write('prefix.gguf', [['tokenizer.ggml.add_space_prefix', { type: GGUF_TYPE.bool, value: true }]]), join(dir, 'x.gguf'), ['IN'], 'toy')).toThrow(
      'the model adds a space before every text (tokenizer.ggml.add_space_prefix = true); cutting its vocabulary needs a tokenizer that does not',
    );
    const made = deriveModel(write('again.gguf'), join(dir, 'pinned.gguf'), ['IN'], 'toy', '0'.repeat(64));
    expect(made.sha256).not.toBe('0'.repeat(64));
    expect(existsSync(join(dir, 'pinned.gguf'))).toBe(false);
    expect(existsSync(join(dir, 'pinned.gguf.partial'))).toBe(false);
  });
});

describe("the strategist's texts", () => {
  // Digits are lone tokens: a line is covered when one with other digits is there.
  const digitless = (line: string) => line.replace(/\d+/g, '0');

  it('hold every system prompt the team sends, each persona style, and every state line of a sampled match, digits aside', () => {
    const texts = new Set(strategistTexts());
    const lines = new Set([...texts].flatMap((t) => t.split('\n')).map(digitless));
    for (const sample of sampleWorlds(40)) {
      for (const format of ['terse', 'compact', 'json'] as const) {
        for (const style of [undefined, ...PERSONAS.map((p) => p.prompt)]) {
          const [system, user] = buildRequest(teamSituation(sample.world, sample.team), sample.current, { format, temperature: 0, ...(style ? { style } : {}) }).messages;
          expect(texts.has(system!.content)).toBe(true);
          for (const line of user!.content.split('\n')) expect(lines.has(digitless(line)), line).toBe(true);
        }
      }
    }
  });
});

const ask = (client: LlamaChatClient, request: ChatRequest) => client.complete(request, new AbortController().signal);

describeWithLocalModel('the derived model')('the derived model against the pulled one', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hillmind-derived-'));
  let derived: LlmConnection;
  let whole: LlmConnection;
  const client = (c: LlmConnection) => c.client as LlamaChatClient;
  // A request for each sampled situation, in the shipped adapter's format and in words.
  const requests = sampleWorlds(24, 500).flatMap((s, i) => {
    const style = i % 3 === 0 ? PERSONAS[i % PERSONAS.length]!.prompt : undefined;
    return (['terse', 'compact'] as const).map((format) => buildRequest(teamSituation(s.world, s.team), s.current, { format, temperature: 0, ...(style ? { style } : {}) }));
  });

  beforeAll(async () => {
    requireLocalModel();
    const env = { LLM_CACHE: 'off', LLM_SEQUENCES: '1', LLM_THREADS: '1', LLM_FORMAT: 'terse' };
    derived = await nodeLlmAccess({ spec: parseLlmSpec(env) }).connect();
    const pulled = join(localModelDir(process.env), LOCAL_SPEC.file);
    whole = await nodeLlmAccess({ spec: parseLlmSpec({ ...env, HILLMIND_LLM_GGUF: pulled, LLM_ADAPTER: shippedAdapterPath(LOCAL_SPEC)! }) }).connect();
  }, 120_000);
  afterAll(async () => {
    await client(derived)?.engine.dispose();
    await client(whole)?.engine.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is derived again, from the pulled file and the texts of today, into the pinned bytes', () => {
    const made = deriveModel(join(localModelDir(process.env), LOCAL_SPEC.file), join(dir, 'again.gguf'), strategistTexts(), `${LOCAL_SPEC.file} sha256 ${LOCAL_SPEC.sha256}`);
    expect({ sha256: made.sha256, bytes: made.bytes }, `pin the new digest in llm/localModels.ts (${LOCAL_MODELS[DEFAULT_LOCAL_MODEL]!.id}.derived) if the prompts changed on purpose`).toEqual({ sha256: LOCAL_ENGINE_FILE.sha256, bytes: LOCAL_ENGINE_FILE.bytes });
    expect(made.kept.length).toBeLessThan(5000);
  }, 60_000);

  it('reads every prompt in the same tokens as the pulled model', () => {
    const made = deriveModel(join(localModelDir(process.env), LOCAL_SPEC.file), join(dir, 'ids.gguf'), strategistTexts(), 'test');
    for (const request of requests) {
      const cut = client(derived).promptTokenIds(request.messages);
      expect(cut.map((id) => made.kept[id])).toEqual(client(whole).promptTokenIds(request.messages));
    }
  }, 60_000);

  it('gives the same answers, with the shipped adapter', async () => {
    for (const request of requests.slice(0, 24)) expect((await ask(client(derived), request)).text).toBe((await ask(client(whole), request)).text);
  }, 240_000);
});
