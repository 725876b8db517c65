// Profiles' config: the permissions a session may be given and the profiles that bundle them (the
// built-in four, which the file's `profiles` may override or extend).
import { Type, type Static } from 'typebox';
import { ConfigError } from '../../config/error.js';
import { parseAllowEntry } from '../../lib/net-patterns.js';
import { NetworkPolicySchema } from '../../network/config.js';

export const PermissionSchema = Type.Union([
  Type.Literal('read'),
  Type.Literal('write'),
  Type.Literal('execute'),
  Type.Literal('network'),
]);
export type Permission = Static<typeof PermissionSchema>;

const ProfileSchema = Type.Object(
  {
    permissions: Type.Array(PermissionSchema, { uniqueItems: true }),
    network: Type.Optional(NetworkPolicySchema),
    categories: Type.Optional(Type.Array(Type.String())),
    excludeTools: Type.Optional(Type.Array(Type.String())),
    /** Tools carrying any of these tags are left out (SynthDev's role exclusions by tag). */
    excludeTags: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    approval: Type.Optional(
      Type.Array(Type.String(), { description: 'tool or category names needing approval' }),
    ),
    fork: Type.Optional(
      Type.Boolean({
        description: 'sessions of this profile may fork themselves (POST /v1/sessions/{id}/fork)',
      }),
    ),
    image: Type.Optional(
      Type.String({ minLength: 1, description: 'image key of its sessions (docker, kubernetes backends)' }),
    ),
    preview: Type.Optional(
      Type.Object(
        {
          expose: Type.Boolean({
            description:
              'sessions of this profile may expose ports for previews (expose_port, docs/previews.md)',
          }),
          ports: Type.Optional(
            Type.Array(Type.Integer({ minimum: 1, maximum: 65535 }), {
              uniqueItems: true,
              maxItems: 64,
              description: 'ports exposed from the start, without a call of expose_port',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    editDiagnostics: Type.Optional(
      Type.Boolean({
        description:
          "false: edits of its sessions do not report the language server's new problems (default true)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ProfileConfig = Static<typeof ProfileSchema>;
/** The file's `profiles`: profile name → profile. */
export const ProfilesSchema = Type.Record(Type.String({ minLength: 1 }), ProfileSchema);

export const BUILTIN_PROFILES: Record<string, ProfileConfig> = {
  'read-only': { permissions: ['read'] },
  'read-write': { permissions: ['read', 'write'] },
  // The profiles that run commands (and so servers) may expose them; a preview still needs a token or link.
  execute: { permissions: ['read', 'write', 'execute'], preview: { expose: true } },
  full: { permissions: ['read', 'write', 'execute', 'network'], preview: { expose: true } },
};

/** The built-in profiles with the file's over them (an operator may override one as well as add). */
export function profilesConfig(
  file: Record<string, ProfileConfig> | undefined,
): Record<string, ProfileConfig> {
  return { ...BUILTIN_PROFILES, ...(file ?? {}) };
}

/** Every profile's allow-list entries parse (a typo would otherwise silently allow nothing). */
export function checkProfileNetworks(profiles: Readonly<Record<string, ProfileConfig>>): void {
  for (const [name, profile] of Object.entries(profiles)) {
    for (const entry of profile.network?.allow ?? []) {
      const parsed = parseAllowEntry(entry);
      if (typeof parsed === 'string') throw new ConfigError(`profiles.${name}.network.allow: ${parsed}`);
    }
  }
}
