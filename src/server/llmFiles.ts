/**
 * The local model's files lent to the page, read-only, so the page can run the strategist
 * itself (src/llm/servedFiles.ts says what is listed and why): served only where this
 * server runs the pulled model and its file is there.
 *
 *   GET /api/llm/files          {files: [{role, file, bytes, sha256}]}, the model first;
 *                               404 where no model is lent (and why)
 *   GET /api/llm/files/<file>   the file's bytes (Range requests answered: 206), ETag
 *
 * The digests are read from the files' bytes at the first listing that finds them (about
 * 0.3-1.5 s for the 253 MB model, a third of that for the 70 MB one the engine runs), and again when a file's size or modification time changes
 * (a model pulled again while the server runs); a pulled model whose bytes differ from its
 * pin is never lent: neither listed nor served. The page checks each file it fetches
 * against the listing, so a file changed without either is refused there.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { LendableFile, LlmFiles } from '../llm/servedFiles';
import { LLM_FILES_PATH } from '../llm/servedFiles';
import { sha256File } from '../llm/node/digest';
import { ApiError } from './apiError';
import type { ApiRoutes } from './server';

/** The listing of `files`, or why none is lent. */
export async function listLendableFiles(files: readonly LendableFile[]): Promise<{ readonly ok: true; readonly listing: LlmFiles } | { readonly ok: false; readonly reason: string }> {
  if (files.length === 0) return { ok: false, reason: 'this server lends no model to the page: it runs none of the pulled local models (a model server, or a file HILLMIND_LLM_GGUF names)' };
  const missing = files.find((f) => !existsSync(f.path));
  if (missing) return { ok: false, reason: `the ${missing.role} file ${missing.path} is not there${missing.role === 'model' ? ': run npm run llm:pull' : ''}` };
  const listed: LlmFiles['files'][number][] = [];
  for (const file of files) {
    const sha256 = await sha256File(file.path);
    if (file.pinnedSha256 !== undefined && sha256 !== file.pinnedSha256) {
      return { ok: false, reason: `the ${file.role} file ${file.path} is not the pulled model: its SHA-256 is ${sha256}, the pin says ${file.pinnedSha256} (run npm run llm:pull again)` };
    }
    listed.push({ role: file.role, file: basename(file.path), bytes: statSync(file.path).size, sha256 });
  }
  return { ok: true, listing: { files: listed } };
}

export interface LlmFilesOptions {
  /** What the server's settings lend (lendableFiles); empty: nothing. */
  readonly files: readonly LendableFile[];
}

/** What changes when a file is written again: its size and modification time, or that it is gone. */
function filesStamp(files: readonly LendableFile[]): string {
  return files
    .map((f) => {
      const stat = statSync(f.path, { throwIfNoEntry: false });
      return stat ? `${stat.size}:${stat.mtimeMs}` : 'absent';
    })
    .join('|');
}

/** The routes: the listing and the files, read-only. */
export function llmFilesRoutes(options: LlmFilesOptions): ApiRoutes {
  const names = new Set(options.files.map((f) => basename(f.path)));
  let listing: { readonly stamp: string; readonly result: ReturnType<typeof listLendableFiles> } | null = null;
  /** The listing, read again where a file changed; a failure is never kept (the model may be pulled while the server runs). */
  const lent = async () => {
    const stamp = filesStamp(options.files);
    if (listing?.stamp !== stamp) listing = { stamp, result: listLendableFiles(options.files) };
    const result = await listing.result;
    if (!result.ok) {
      listing = null;
      throw new ApiError(404, result.reason, { help: 'the page asks the server\'s model instead (the llm team\'s model setting: server)' });
    }
    return result.listing;
  };
  return async (app) => {
    app.get(LLM_FILES_PATH, async (_request, reply) => {
      const files = await lent();
      reply.header('cache-control', 'no-cache');
      return files;
    });
    if (options.files.length === 0) return;
    app.addHook('onRequest', async (request) => {
      // A file is served only while the listing lends it (its model the pinned one).
      if (request.url.startsWith(`${LLM_FILES_PATH}/`)) await lent();
      // Sent as they are: brotli (quality 4, the server's) shrinks the quantized weights by 5%
      // for about 2 s of the server's CPU a page (0.25 s per 32 MiB here), and a compressed
      // answer cannot be ranged.
      delete request.headers['accept-encoding'];
    });
    // Each file from its own folder; nothing else under them is reachable.
    await app.register(fastifyStatic, {
      root: [...new Set(options.files.map((f) => resolve(dirname(f.path))))],
      prefix: `${LLM_FILES_PATH}/`,
      decorateReply: false,
      index: false,
      list: false,
      cacheControl: false,
      allowedPath: (path) => names.has(path.replace(/^\//, '')),
      setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache'),
    });
  };
}
