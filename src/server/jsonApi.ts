/**
 * What every JSON API context of the server shares (the LLM proxy's, the study API's): the
 * origin rule on every request and JSON bodies only (origin.ts: 403 and 415 before a body
 * is read), bodies parsed as JSON with a 400 that says so, answers never cached, and
 * errors answered in the one shape (apiError.ts).
 */
import type { FastifyInstance } from 'fastify';
import { ApiError, replyWithError } from './apiError';
import { foreignOrigin, notJson } from './origin';

export interface JsonApiOptions {
  /** Errors of the routes' own kinds as ApiErrors (the study's StudyError); others pass as they are. */
  readonly mapError?: (err: unknown) => unknown;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * How deep a body's arrays and objects may nest. The API's deepest body (a left episode's
 * replay) nests 5 levels; walking a body thousands of levels deep (JSON.stringify, zod)
 * overflows the stack, which no handler can catch, so such a body is refused unparsed.
 */
export const MAX_JSON_DEPTH = 64;

/** Whether `text` opens more than `max` arrays and objects inside one another (brackets inside strings do not count): one pass, no parse. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Parse a JSON body; an empty one is {} (a POST that only says "done"). */
export function parseJson(text: string): unknown {
  if (text.trim() === '') return {};
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw new ApiError(400, `the request nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`);
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, 'the request is not JSON');
  }
}

/** Apply the JSON API conventions to `app`'s context: call it first thing in the plugin that holds the routes. */
export function jsonApi(app: FastifyInstance, options: JsonApiOptions = {}): void {
  app.addHook('onRequest', async (request, reply) => {
    // Answers are the state of the moment: never cached.
    reply.header('cache-control', 'no-store');
    const refusal = foreignOrigin(request.raw) ?? (BODY_METHODS.has(request.method) ? notJson(request.raw) : null);
    if (refusal) throw new ApiError(refusal.status, refusal.message);
  });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    try {
      done(null, parseJson(text as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  const mapError = options.mapError ?? ((err: unknown) => err);
  app.setErrorHandler((err, request, reply) => replyWithError(mapError(err), request, reply));
}
