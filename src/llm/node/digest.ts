/**
 * A file's sha256, streamed through node's crypto (4 MiB reads), and a file written under
 * its name only when its sha256 is the pinned one. Node only.
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
import { closeSync, createReadStream, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

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

/**
 * Write `chunks` to `target` by way of `<target>.partial`, hashing them as they go. The file
 * takes its name only where `accept` takes its sha256: bytes other than the pinned ones
 * never stand under a model's name, and the partial file is removed. `onBytes` is told the
 * bytes written so far after each chunk.
 */
export function writePinned(
  target: string,
  chunks: Iterable<Uint8Array>,
  accept: (sha256: string) => boolean,
  onBytes?: (done: number) => void,
): { readonly sha256: string; readonly bytes: number; readonly accepted: boolean } {
  mkdirSync(dirname(target), { recursive: true });
  const partial = `${target}.partial`;
  const hash = createHash('sha256');
  let bytes = 0;
  const fd = openSync(partial, 'w');
  try {
    for (const chunk of chunks) {
      writeSync(fd, chunk);
      hash.update(chunk);
      bytes += chunk.length;
      onBytes?.(bytes);
    }
  } catch (err) {
    closeSync(fd);
    rmSync(partial, { force: true });
    throw err;
  }
  closeSync(fd);
  const sha256 = hash.digest('hex');
  const accepted = accept(sha256);
  if (accepted) renameSync(partial, target);
  else rmSync(partial, { force: true });
  return { sha256, bytes, accepted };
}
