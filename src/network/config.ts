// The network's config: the config file's `network` section (the egress proxy's opened ranges, hosts
// file, timeouts) and the egress policy a profile or a session gives (NetworkPolicySchema).
import path from 'node:path';
import { Type, type Static } from 'typebox';
import { ConfigError } from '../config/error.js';
import { withDefaults } from '../config/section.js';
import { isCidr } from '../lib/net-patterns.js';

/**
 * A session's egress policy: `off` (no way out), `allowlist` (only the names, "*.example.com" wildcards
 * and CIDR ranges in `allow`) or `open` (any public address). Blocked ranges stay blocked in every mode.
 */
export const NetworkPolicySchema = Type.Object(
  {
    mode: Type.Union([Type.Literal('off'), Type.Literal('allowlist'), Type.Literal('open')]),
    allow: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 260 }), {
        maxItems: 500,
        description: 'Host names, "*.example.com" (any subdomain) and CIDR ranges; used in allowlist mode',
      }),
    ),
  },
  { additionalProperties: false },
);
export type NetworkPolicy = Static<typeof NetworkPolicySchema>;

export const NetworkSchema = Type.Object(
  {
    openRanges: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description:
        'CIDR ranges sessions may reach although they are blocked (an internal package mirror); a range opened here is open to every session whose policy allows the destination',
    }),
    hostsFile: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'A hosts file (/etc/hosts format) the egress proxy looks names up in before DNS',
      }),
    ),
    connectTimeoutMs: Type.Integer({ minimum: 100, default: 10_000 }),
    spliceAfterBytes: Type.Integer({
      minimum: 0,
      default: 1024 * 1024,
      description:
        "Bytes a proxied connection moves through the service's own copy before the kernel's splice(2) carries the rest (a python3 with os.splice is needed; 0 = never)",
    }),
  },
  { additionalProperties: false },
);
export type NetworkConfig = Static<typeof NetworkSchema>;

/** The network section with its paths resolved and its ranges checked. */
export function networkConfig(section: Partial<NetworkConfig> | undefined): NetworkConfig {
  const network = withDefaults(NetworkSchema, section);
  for (const range of network.openRanges) {
    if (!isCidr(range)) throw new ConfigError(`network.openRanges: "${range}" is not a CIDR range`);
  }
  return network.hostsFile === undefined
    ? network
    : { ...network, hostsFile: path.resolve(network.hostsFile) };
}
