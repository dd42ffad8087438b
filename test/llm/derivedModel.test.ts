/**
 * The strategist's derived model (llm/node/derivedModel.ts): the pulled model with its
 * vocabulary cut to the tokens of the strategist's texts. It must read every prompt in the
 * same tokens as the pulled model and give the same answers; its bytes must be the pinned
 * ones (a change to the prompts shows here first, with what to do).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatRequest, type LlmConnection, buildRequest } from '../../src/llm';
import { type Vocabulary, deriveModel, keptTokenIds } from '../../src/llm/node/derivedModel';
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
