// Turns an admin's session request into the policy stored with the session: profile → permissions,
// category allow-list, excluded tools (by name, or `tag:<tag>`), approvals and lifetime — refusing unknown names field by field.
import type { Config, NetworkPolicy, RateLimits } from '../../config.js';
import { narrowPolicy, profileNetwork } from '../../network/policy.js';
import type { NewSession } from '../../store/sessions.js';
import { toolgateError } from '../../lib/errors.js';
import type { ToolRegistry } from '../../contract/registry.js';
import { EXCLUDED_TAG_PREFIX } from './permissions.js';

/** A new session gets this profile unless the request names one: read, write and sandboxed commands. */
export const DEFAULT_PROFILE = 'execute';

export interface SessionPolicyRequest {
  profile?: string;
  categories?: string[];
  excludeTools?: string[];
  rateLimits?: RateLimits;
  approval?: string[];
  ttlSeconds?: number;
  metadata?: Record<string, unknown>;
  /** Narrows the profile's egress policy; never widens it. */
  network?: NetworkPolicy;
  image?: string;
}

const invalid = (message: string, field: string, problem: string, expected?: string) =>
  toolgateError('VALIDATION_FAILED', message, {
    details: { errors: [{ field, problem, ...(expected ? { expected } : {}) }] },
  });

export function sessionPolicy(
  request: SessionPolicyRequest,
  config: Config,
  registry: ToolRegistry,
  now: number,
): NewSession {
  const profileName = request.profile ?? DEFAULT_PROFILE;
  const profile = config.profiles[profileName];
  if (!profile) {
    throw invalid(
      `Unknown profile "${profileName}"`,
      'profile',
      'is not a known profile',
      Object.keys(config.profiles).join(', '),
    );
  }
  const knownCategories = registry.categories();
  const badCategory = request.categories?.find((c) => !knownCategories.includes(c));
  if (badCategory !== undefined) {
    throw invalid(
      `Unknown category "${badCategory}"`,
      'categories',
      `"${badCategory}" is not a category`,
      knownCategories.join(', '),
    );
  }
  // `tag:<tag>` excludes every tool with that tag, now or loaded later (tool names cannot contain ':').
  const badTool = request.excludeTools?.find(
    (name) => !name.startsWith(EXCLUDED_TAG_PREFIX) && !registry.get(name),
  );
  if (badTool !== undefined) {
    throw invalid(`Unknown tool "${badTool}" in excludeTools`, 'excludeTools', `"${badTool}" is not a tool`);
  }
  const image = request.image ?? profile.image;
  if (image !== undefined) checkImage(image, config);
  const ttlSeconds = request.ttlSeconds ?? config.sessions.defaultTtlSeconds;
  if (ttlSeconds > config.sessions.maxTtlSeconds) {
    const max = config.sessions.maxTtlSeconds;
    throw invalid(`ttlSeconds may be at most ${max}`, 'ttlSeconds', `must be <= ${max}`);
  }
  const network = narrowPolicy(profileNetwork(profile, profile.permissions), request.network);
  if (typeof network === 'string') {
    throw invalid(`network: ${network}`, 'network', network, "the profile's policy or a narrower one");
  }
  const union = (...lists: (readonly string[] | undefined)[]) => [
    ...new Set(lists.flatMap((list) => list ?? [])),
  ];
  return {
    profile: profileName,
    permissions: profile.permissions,
    categories: request.categories ?? profile.categories ?? null,
    excludeTools: union(
      profile.excludeTools,
      profile.excludeTags?.map((tag) => `${EXCLUDED_TAG_PREFIX}${tag}`),
      request.excludeTools,
    ),
    rateLimits: request.rateLimits ?? {},
    approval: union(config.approval, profile.approval, request.approval),
    metadata: request.metadata ?? {},
    network,
    image: image ?? null,
    expiresAt: now + ttlSeconds * 1000,
  };
}

/** An image key must name an image the operator allows; only the container backends have images. */
function checkImage(image: string, config: Config): void {
  const allowed = config.containers ? Object.keys(config.containers.images) : [];
  if (allowed.includes(image)) return;
  throw invalid(
    config.containers
      ? `Unknown image "${image}"`
      : `This service's runtime backend (${config.sandbox}) has no images to choose from`,
    'image',
    config.containers ? 'is not an allowed image key' : 'needs the docker or kubernetes runtime backend',
    allowed.join(', ') || undefined,
  );
}
