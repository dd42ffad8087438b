/**
 * The local model's files as the server lends them to the page, so the page can run the
 * strategist itself (pageModel.ts): the pulled model and the shipped adapter, listed
 * with their sizes and sha256 at GET /api/llm/files, each at /api/llm/files/<file>.
 * The page checks every file's digest against the listing before it loads it.
 * Browser-safe: the paths, the listing's shape, and which files a server's settings lend.
 */
import { z } from 'zod';
import { LOCAL_MODELS, engineFile } from './localModels';
import type { LlmSettings, SettingsResult } from './settings';

export const LLM_FILES_PATH = '/api/llm/files';

/** What each served file is to the page's engine. */
export const SERVED_FILE_ROLES = ['model', 'adapter'] as const;
export type ServedFileRole = (typeof SERVED_FILE_ROLES)[number];

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 in lower-case hex');

/** GET /api/llm/files: the files, the model first. */
export const llmFilesSchema = z.strictObject({
  files: z
    .array(
      z.strictObject({
        role: z.enum(SERVED_FILE_ROLES),
        /** The file's name: its address is LLM_FILES_PATH/<file>. */
        file: z.string().regex(/^[A-Za-z0-9._-]{1,128}\.gguf$/, 'a .gguf file name'),
        bytes: z.number().int().positive(),
        sha256,
      }),
    )
    .min(1)
    .max(2)
    .refine((files) => files[0]?.role === 'model' && files.filter((f) => f.role === 'model').length === 1, 'one model, listed first'),
});
export type LlmFiles = z.infer<typeof llmFilesSchema>;
export type ServedFile = LlmFiles['files'][number];

/** The URL of a listed file. */
export function servedFileUrl(file: Pick<ServedFile, 'file'>, base: string = LLM_FILES_PATH): string {
  return `${base}/${encodeURIComponent(file.file)}`;
}

/** A file the server may lend: its path on the server and, for a pulled model, its pinned sha256. */
export interface LendableFile {
  readonly role: ServedFileRole;
  readonly path: string;
  readonly pinnedSha256?: string;
}

/**
 * The files a server with these settings lends the page: the pulled model (whose digest is
 * pinned) and its adapter, where the server runs the local model itself; none otherwise (a
 * model server, or a GGUF file HILLMIND_LLM_GGUF names, which no digest vouches for), and
 * none where the settings are not valid (llmSettingsOf's result, as the entry points hold it).
 */
export function lendableFiles(settings: LlmSettings | SettingsResult): readonly LendableFile[] {
  if ('ok' in settings) return settings.ok ? lendableFiles(settings.settings) : [];
  if (settings.source !== 'local' || settings.pulled === null) return [];
  const spec = LOCAL_MODELS[settings.pulled];
  if (!spec) return [];
  const model: LendableFile = { role: 'model', path: settings.gguf, pinnedSha256: engineFile(spec).sha256 };
  return settings.adapter === null ? [model] : [model, { role: 'adapter', path: settings.adapter }];
}
