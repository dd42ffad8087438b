/**
 * The one error shape of every JSON API the server answers (the LLM proxy, the study API,
 * the health check, unknown API routes, refusals of the Host and Origin rules):
 *
 *   {"error": {"kind": "too-large", "message": "the request is larger than 16384 bytes"}}
 *
 * `kind` is a word a program branches on (the page's LLM client reads the proxy's kinds:
 * "rate-limit", "timeout", "aborted", "unavailable"); `message` says what was wrong and what
 * is expected, for a person; `help`, where there is more to say (how to set a model up).
 * Errors of every origin, ours (ApiError), the framework's (a body past its limit, a
 * malformed URL) and unexpected ones (a 500), are answered through replyWithError.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';

export const apiErrorSchema = z.strictObject({
  error: z.strictObject({
    kind: z.string().regex(/^[a-z]+(-[a-z]+)*$/),
    message: z.string().min(1),
    help: z.string().min(1).optional(),
  }),
});

export type ApiErrorBody = z.infer<typeof apiErrorSchema>;

/** The kind an error of `status` has unless it names a more precise one. */
export function kindOfStatus(status: number): string {
  const kinds: Readonly<Record<number, string>> = {
    400: 'invalid',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'not-found',
    405: 'method-not-allowed',
    409: 'conflict',
    410: 'gone',
    413: 'too-large',
    415: 'unsupported-media-type',
    429: 'rate-limit',
    499: 'aborted',
    502: 'upstream',
    503: 'unavailable',
    504: 'timeout',
  };
  return kinds[status] ?? (status >= 500 ? 'server' : 'invalid');
}

export interface ApiErrorOptions {
  /** Default: the status's kind (kindOfStatus). */
  readonly kind?: string;
  readonly help?: string;
  /** Headers the answer carries (Retry-After, Allow). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** An error a route answers with: its status and the body of the one shape. */
export class ApiError extends Error {
  readonly kind: string;
  readonly help: string | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly status: number,
    message: string,
    options: ApiErrorOptions = {},
  ) {
    super(message);
    this.kind = options.kind ?? kindOfStatus(status);
    this.help = options.help;
    this.headers = options.headers ?? {};
  }

  body(): ApiErrorBody {
    return { error: { kind: this.kind, message: this.message, ...(this.help ? { help: this.help } : {}) } };
  }
}

/** Parse `body` with `schema`, or a 400 naming the first problem and where it is. */
export function validBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ApiError(400, `invalid request at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
}

interface FrameworkError {
  readonly code?: unknown;
  readonly statusCode?: unknown;
  readonly message: string;
}

/** Any error as the ApiError to answer with: the framework's in words of this API, the unexpected as a 500 that says what broke. */
export function asApiError(err: unknown, request: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;
  if (!(err instanceof Error)) return new ApiError(500, String(err));
  const { code, statusCode } = err as FrameworkError;
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, `the request is larger than ${request.routeOptions.bodyLimit} bytes`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, 'send JSON with Content-Type: application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError(400, 'the request body is not as long as its Content-Length says');
    default:
      return typeof statusCode === 'number' && statusCode >= 400 && statusCode < 600 ? new ApiError(statusCode, err.message) : new ApiError(500, err.message);
  }
}

/**
 * Most bytes of a refused request body read and dropped before its refusal is sent. A
 * server that answers and closes while the client is still sending makes the client's
 * system reset the connection, and the client sees that instead of the answer; past this
 * bound the answer is sent anyway and the connection closed.
 */
export const DISCARD_MAX_BYTES = 32 * 1024 * 1024;

/** Read and drop what is left of a request body, up to `max` bytes: true once all of it is in. */
export function dropBody(req: IncomingMessage, max = DISCARD_MAX_BYTES): Promise<boolean> {
  if (req.complete) return Promise.resolve(true);
  if (Number(req.headers['content-length'] ?? 0) > max) return Promise.resolve(false);
  return new Promise((done) => {
    let dropped = 0;
    const finish = (all: boolean) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      done(all);
    };
    const onData = (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > max) finish(false);
    };
    const onEnd = () => finish(true);
    const onError = () => finish(false);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.resume();
  });
}

/**
 * Answer `err` in the one shape, never cached. A body left unread (too large, refused
 * before it was read) is read and dropped first, so the client hears the answer; a body
 * past DISCARD_MAX_BYTES is not, and the connection closes after the answer.
 */
export async function replyWithError(err: unknown, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const error = asApiError(err, request);
  if (reply.sent || reply.raw.headersSent) {
    reply.raw.destroy();
    return;
  }
  if (!(await dropBody(request.raw))) reply.header('connection', 'close');
  await reply.code(error.status).headers({ ...error.headers, 'cache-control': 'no-store' }).type('application/json; charset=utf-8').send(error.body());
}
