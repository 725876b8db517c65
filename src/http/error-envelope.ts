// Maps every error — ours, Fastify's (bad JSON, body too large, unsupported media type, schema
// validation) and unknown routes — to the one error envelope. 500 only for real bugs, which are logged.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { failureEnvelope } from '../lib/envelope.js';
import {
  isToolgateError,
  toolgateError,
  type ErrorCode,
  type ToolgateError,
  fromStorageError,
} from '../lib/errors.js';
import { SESSION_TOKEN_REQUIRED } from './bearer-challenge.js';

/** OAuth's well-known and default endpoints (RFC 8414, OpenID discovery, RFC 7591 `/register`…). */
const OAUTH_FALLBACK =
  /^\/(\.well-known\/(oauth-authorization-server|openid-configuration)(\/.*)?|register|authorize|token)$/;

const BY_STATUS: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'BODY_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  503: 'SHUTTING_DOWN',
  504: 'TIMEOUT',
};

function fromFastifyError(err: FastifyError): ToolgateError {
  if (err.validation) {
    const errors = err.validation.map((v) => ({
      field: `${err.validationContext ?? 'request'}${v.instancePath || ''}`,
      problem: v.message ?? 'is invalid',
    }));
    return toolgateError(
      'VALIDATION_FAILED',
      `Invalid ${err.validationContext ?? 'request'}: ${errors.map((e) => `${e.field} ${e.problem}`).join('; ')}`,
      {
        details: { errors },
      },
    );
  }
  const status = err.statusCode ?? 500;
  if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || (status === 400 && err instanceof SyntaxError)) {
    return toolgateError('INVALID_JSON', `Request body is not valid JSON: ${err.message}`, {
      suggestion: 'Send a JSON object with Content-Type: application/json.',
    });
  }
  if (err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
    return toolgateError('INVALID_JSON', 'Body is empty but Content-Type is application/json', {
      suggestion: 'Send {} for a call without arguments, or omit the Content-Type header.',
    });
  }
  const code = BY_STATUS[status];
  if (code && status < 500) return toolgateError(code, err.message);
  return toolgateError('INTERNAL_ERROR', 'Internal error', { cause: err });
}

export function sendError(
  reply: FastifyReply,
  request: FastifyRequest,
  error: ToolgateError,
  callId?: string,
) {
  if (error.headers) reply.headers(error.headers);
  return reply
    .code(error.statusCode)
    .type('application/json')
    .send(failureEnvelope(error, { callId, requestId: request.id }));
}

/** Fastify's routing errors, in words that do not echo the (possibly huge) URL back. */
const FRAMEWORK_ERRORS: Record<string, { message: string; suggestion: string }> = {
  FST_ERR_BAD_URL: {
    message: 'The URL is not valid (bad percent-encoding)',
    suggestion: 'Percent-encode path segments (encodeURIComponent) before sending.',
  },
  FST_ERR_MAX_PARAM_LENGTH: {
    message: 'A path segment of the URL is too long',
    suggestion: 'Ids and names in paths are short; check the URL.',
  },
};

/**
 * Errors Fastify raises before routing (a URL that is not valid percent-encoding, a failed route
 * constraint) skip the error handler; the `frameworkErrors` option sends them here, so they get the
 * envelope too.
 */
export function sendFrameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const known = FRAMEWORK_ERRORS[err.code];
  const error = known
    ? toolgateError('BAD_REQUEST', known.message, { suggestion: known.suggestion })
    : fromFastifyError(err);
  return sendError(reply, request, error);
}

export function registerErrorEnvelope(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const error = isToolgateError(err) ? err : (fromStorageError(err) ?? fromFastifyError(err));
    if (error.statusCode >= 500) request.log.error({ err }, 'request failed');
    return sendError(reply, request, error);
  });
  app.setNotFoundHandler((request, reply) => {
    const route = request.url.split('?')[0]!;
    // An MCP client that found no authorization server in our metadata falls back to OAuth's default
    // endpoints on this origin; it shows what they answer, so they say what it needs instead.
    const oauth = OAUTH_FALLBACK.test(route);
    return sendError(
      reply,
      request,
      toolgateError(
        'ROUTE_NOT_FOUND',
        oauth
          ? `No route ${request.method} ${route.slice(0, 200)}: toolgate is no OAuth authorization server; ${SESSION_TOKEN_REQUIRED}`
          : `No route ${request.method} ${route.slice(0, 200)}`,
        {
          suggestion: oauth
            ? 'Configure the MCP client with the header "Authorization: Bearer <session token>".'
            : 'See GET /openapi.json or /docs for the API.',
        },
      ),
    );
  });
}
