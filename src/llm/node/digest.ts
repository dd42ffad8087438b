/**
 * A file's sha256, streamed through node's crypto (4 MiB reads). Node only.
 *
 * What it costs: the 253 MB Gemma 3 270M GGUF hashes in 0.25-0.32 s from the page cache on
 * this project's 2-core machine (SHA-NI; 1.2-1.6 s while other work held both cores), under
 * the ~1 s the model takes to load and ready. So a pinned model is
 * hashed every time an engine loads it (once per process: the engine is shared), rather
 * than trusting a cached verdict. Any cache key a byte flip cannot change (size, mtime,
 * ctime, inode: all can be kept or restored by whoever flips the byte) would let a
 * damaged file through; only the bytes themselves tell.
 */
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';

/** The sha256 of a file in hex, reporting bytes read. */
export async function sha256File(path: string, onBytes?: (done: number, total: number) => void): Promise<string> {
  const total = statSync(path).size;
  const hash = createHash('sha256');
  let done = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 4 << 20 })) {
    hash.update(chunk as Buffer);
    done += (chunk as Buffer).length;
    onBytes?.(done, total);
  }
  return hash.digest('hex');
}
