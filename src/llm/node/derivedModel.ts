/**
 * The strategist's model file, derived from the pulled one at pull time: the same weights,
 * with the vocabulary cut to the tokens the strategist's texts can hold. Reading an answer's
 * number probabilities computes a logit for every token of the vocabulary (Gemma 3: 262,144
 * rows of 640, about 25 ms of a 124 ms decision, twice a decision); the cut model computes
 * a few thousand. The token embedding is most of Gemma 3 270M's file, so the page downloads
 * a third as much. `npm run bench -- --only local-llm` prints both models side by side.
 *
 * Why answers read from number probabilities (compact, terse) do not change: llama.cpp's
 * SentencePiece tokenizer first splits out the control and user-defined tokens found in the
 * text, then merges adjacent pieces, best score first, whenever their join is a token. Every piece it ever considers is a substring of the
 * text, so a vocabulary that keeps every token that is a substring of a text (with the same
 * scores, in the same order) tokenises that text into the same tokens. Each kept token keeps
 * its row of the embedding, and a logit is that row against the last hidden state, so the
 * kept tokens' logits are the same numbers; such an answer reads only number tokens. A JSON
 * answer is generated, and the cut model writes only kept tokens, so it may differ. Text the
 * corpus never held (a rationale written freely, a prompt from elsewhere) still tokenises,
 * falling back to shorter pieces and bytes, which changes what the model reads.
 * test/llm/derivedModel.test.ts holds the tokens and the answers to the pulled model's.
 */
import { readFileSync } from 'node:fs';
import { writePinned } from './digest';
import { GGUF_TYPE, type GgufFile, type GgufTensorOut, type GgufValue, ggufChunks, parseGguf, rowBytes, tensorBytes } from './gguf';

/** llama.cpp's token types (llama_token_type). */
const TOKEN_TYPE = { normal: 1, unknown: 2, control: 3, userDefined: 4, byte: 6 } as const;

/** SentencePiece writes a space as this mark inside a piece. */
const SPACE_MARK = '\u2581';

/** The tokens that split text into lines: no other token spans one (Gemma's "\n" is a user-defined token). */
const LINE_BREAK = '\n';

export interface Vocabulary {
  readonly tokens: readonly string[];
  readonly types: readonly number[];
  /** Token ids that must stay whatever the texts (begin, end, unknown, padding). */
  readonly required: readonly number[];
}

/** Every substring of `line` up to `maxLength` characters, into `into`. */
function addSubstrings(line: string, maxLength: number, into: Set<string>): void {
  const chars = [...line];
  for (let start = 0; start < chars.length; start++) {
    let piece = '';
    for (let end = start; end < chars.length && end - start < maxLength; end++) {
      piece += chars[end];
      into.add(piece);
    }
  }
}

/**
 * The ids, ascending, of the tokens to keep for `texts`: every token, of any type, that is a
 * substring of a line of a text (spaces as SentencePiece writes them, or as they are: the
 * tokenizer's merges look tokens up whatever their type), every control or user-defined
 * token a text holds across its lines (a run of line breaks), every byte token (the fallback
 * for any character), and the required ones.
 */
export function keptTokenIds(vocabulary: Vocabulary, texts: readonly string[]): number[] {
  const { tokens, types } = vocabulary;
  const maxLength = tokens.reduce((m, t, id) => (types[id] === TOKEN_TYPE.byte ? m : Math.max(m, [...t].length)), 1);
  const lines = new Set(texts.flatMap((text) => text.split(LINE_BREAK)));
  const substrings = new Set<string>();
  for (const line of lines) {
    addSubstrings(line, maxLength, substrings);
    addSubstrings(line.replaceAll(' ', SPACE_MARK), maxLength, substrings);
  }
  const whole = texts.join('\u0000');
  const required = new Set(vocabulary.required);
  const kept: number[] = [];
  tokens.forEach((text, id) => {
    const type = types[id];
    const keep =
      required.has(id) ||
      type === TOKEN_TYPE.byte ||
      type === TOKEN_TYPE.unknown ||
      substrings.has(text) ||
      ((type === TOKEN_TYPE.userDefined || type === TOKEN_TYPE.control) && text !== '' && whole.includes(text));
    if (keep) kept.push(id);
  });
  return kept;
}

const arrayOf = (file: GgufFile, key: string): readonly (number | bigint | boolean | string)[] => {
  const value = file.metadata.get(key);
  if (!value || !('items' in value)) throw new Error(`the model has no ${key} array: it is not a llama.cpp model with a vocabulary`);
  return value.items;
};

/** The metadata keys that hold a token id (tokenizer.ggml.bos_token_id, ...). */
const isTokenIdKey = (key: string) => key.startsWith('tokenizer.ggml.') && key.endsWith('_token_id');

const scalarOf = (file: GgufFile, key: string) => {
  const value = file.metadata.get(key);
  return value && 'value' in value ? value.value : undefined;
};

/**
 * The vocabulary of a parsed model file, refused unless the cut keeps its tokenisation: a
 * SentencePiece tokenizer (tokenizer.ggml.model = llama) that adds no space before a text
 * (a leading space mark would start pieces no line holds) and whose line break is a token
 * of its own (so no token spans lines).
 */
export function vocabularyOf(file: GgufFile): Vocabulary {
  const model = scalarOf(file, 'tokenizer.ggml.model');
  if (model !== 'llama') throw new Error(`the model's tokenizer is ${model === undefined ? 'not named' : String(model)}; cutting a vocabulary needs a SentencePiece one (tokenizer.ggml.model = llama)`);
  if (scalarOf(file, 'tokenizer.ggml.add_space_prefix') === true) throw new Error('the model adds a space before every text (tokenizer.ggml.add_space_prefix = true); cutting its vocabulary needs a tokenizer that does not');
  const tokens = arrayOf(file, 'tokenizer.ggml.tokens').map(String);
  const types = arrayOf(file, 'tokenizer.ggml.token_type').map(Number);
  const lineBreak = tokens.indexOf(LINE_BREAK);
  if (lineBreak < 0 || types[lineBreak] !== TOKEN_TYPE.userDefined) throw new Error('the model has no user-defined line-break token; cutting its vocabulary needs one, so no token spans two lines');
  const required = [...file.metadata].filter(([key]) => isTokenIdKey(key)).map(([, v]) => Number('value' in v ? v.value : -1)).filter((id) => id >= 0 && id < tokens.length);
  return { tokens, types, required };
}

/** Tensors whose rows are tokens: the embedding, and the output head where it is not tied to it. */
const TOKEN_ROW_TENSORS = new Set(['token_embd.weight', 'output.weight']);

export interface DerivedModel {
  /** The kept tokens' ids in the source model, ascending (a derived id is an index into it). */
  readonly kept: readonly number[];
  readonly sha256: string;
  readonly bytes: number;
}

/**
 * Write `target` from the GGUF model in `source`, its vocabulary cut to the tokens of
 * `texts` (keptTokenIds), and return what it kept and the file's digest. Every other tensor
 * and metadata value is copied as it is; token ids in the metadata follow their tokens.
 * `provenance` goes into the metadata (hillmind.derived_from), so the file says what it came
 * from. With `expectedSha256`, a file of other bytes never takes the target's name: it is
 * removed, and the result says what it was.
 */
export function deriveModel(source: string, target: string, texts: readonly string[], provenance: string, expectedSha256?: string): DerivedModel {
  const file = parseGguf(readFileSync(source), source);
  const vocabulary = vocabularyOf(file);
  const kept = keptTokenIds(vocabulary, texts);
  const newId = new Map(kept.map((id, index) => [id, index]));
  const metadata = new Map<string, GgufValue>();
  for (const [key, value] of file.metadata) {
    if ('items' in value && key.startsWith('tokenizer.ggml.') && value.items.length === vocabulary.tokens.length) {
      metadata.set(key, { ...value, items: kept.map((id) => value.items[id]!) });
    } else if (key.endsWith('.vocab_size') && 'value' in value) {
      metadata.set(key, { ...value, value: kept.length });
    } else if (isTokenIdKey(key) && 'value' in value) {
      const id = newId.get(Number(value.value));
      if (id === undefined) throw new Error(`${key} names token ${String(value.value)}, which the cut vocabulary lost`);
      metadata.set(key, { ...value, value: id });
    } else metadata.set(key, value);
  }
  metadata.set('hillmind.derived_from', { type: GGUF_TYPE.string, value: provenance });
  metadata.set('hillmind.vocabulary', { type: GGUF_TYPE.string, value: `${kept.length} of ${vocabulary.tokens.length} tokens: those of the strategist's texts` });
  const tensors: GgufTensorOut[] = file.tensors.map((t) => {
    const data = tensorBytes(file, t);
    if (!TOKEN_ROW_TENSORS.has(t.name)) return { name: t.name, dims: t.dims, type: t.type, data };
    if (t.dims.length !== 2 || t.dims[1] !== vocabulary.tokens.length) throw new Error(`${t.name} has shape [${t.dims.join(', ')}]; expected one row per token (${vocabulary.tokens.length})`);
    const row = rowBytes(t);
    return { name: t.name, dims: [t.dims[0]!, kept.length], type: t.type, data: Buffer.concat(kept.map((id) => data.subarray(id * row, (id + 1) * row))) };
  });
  const written = writePinned(target, ggufChunks(metadata, tensors, file.alignment), (sha256) => expectedSha256 === undefined || sha256 === expectedSha256);
  return { kept, sha256: written.sha256, bytes: written.bytes };
}
