// What a client without a usable token is told, the way the MCP authorization spec (RFC 6750 + RFC 9728)
// lets a server say it: a WWW-Authenticate challenge with `error`, `error_description` and the URL of the
// protected-resource metadata, and that metadata naming no authorization server. toolgate issues its own
// tokens (POST /v1/sessions); there is no OAuth flow to start, and clients that read these show the
// description instead of starting one.
import type { FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';

/** Where the service is, as this request reached it. */
export const originOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

/** RFC 9728 §3.1: the metadata of resource `/mcp` is at the well-known path with `/mcp` appended. */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

export const SESSION_TOKEN_REQUIRED =
  'a toolgate session token is required: create a session with POST /v1/sessions (admin key) and send ' +
  'its token as Authorization: Bearer <token>';

/** A quoted-string of RFC 7230: no quote or backslash inside (ours have none; anything else is dropped). */
const quoted = (value: string) => `"${value.replace(/["\\]/g, '')}"`;

/** The challenge of a 401 on an MCP route: why, and where the metadata is. */
export function mcpBearerChallenge(request: FastifyRequest, problem: 'missing' | 'invalid'): string {
  const description =
    problem === 'missing'
      ? SESSION_TOKEN_REQUIRED
      : `the token is invalid or its session has expired; ${SESSION_TOKEN_REQUIRED}`;
  return [
    `Bearer realm=${quoted('toolgate')}`,
    `error=${quoted('invalid_token')}`,
    `error_description=${quoted(description)}`,
    `resource_metadata=${quoted(`${originOf(request)}${RESOURCE_METADATA_PATH}/mcp`)}`,
  ].join(', ');
}

export const ResourceMetadataSchema = Type.Object(
  {
    resource: Type.String({ description: 'The URL of the MCP endpoint' }),
    resource_name: Type.String(),
    authorization_servers: Type.Array(Type.String(), {
      description: 'Empty: no OAuth authorization server issues tokens for this resource',
    }),
    bearer_methods_supported: Type.Array(Type.String()),
    resource_documentation: Type.String(),
    token_required: Type.String({ description: 'How to get the token that is needed instead' }),
  },
  { description: 'OAuth 2.0 protected-resource metadata (RFC 9728)' },
);

/** RFC 9728 protected-resource metadata for /mcp: bearer tokens in the header, no authorization server. */
export function mcpResourceMetadata(request: FastifyRequest): Static<typeof ResourceMetadataSchema> {
  const origin = originOf(request);
  return {
    resource: `${origin}/mcp`,
    resource_name: 'toolgate MCP endpoint',
    // Empty: no authorization server issues tokens for it; a session token comes from POST /v1/sessions.
    authorization_servers: [],
    bearer_methods_supported: ['header'],
    resource_documentation: `${origin}/docs`,
    // An extension member (RFC 9728 §2 allows them): the same words the 401 challenge carries.
    token_required: SESSION_TOKEN_REQUIRED,
  };
}
