/**
 * JSON text from a file or a request, parsed with its source named in the error, so a
 * message says which file is broken (replays, model cards, study configs, checkpoints).
 * Here, at the bottom of the imports, because every layer that reads a file needs it.
 */

/** JSON.parse, throwing `<source> is not valid JSON: <why>` instead of a bare SyntaxError. */
export function parseJsonText(text: string, source: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new Error(`${source} is not valid JSON: ${(err as Error).message}`);
  }
}
