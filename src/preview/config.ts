// The previews' config (docs/previews.md): the file's `preview` section and TOOLGATE_PREVIEW_DOMAIN.
import { Type, type Static } from 'typebox';
import { ConfigError } from '../config/error.js';
import { withDefaults } from '../config/section.js';

/** A DNS name of two labels or more, lower case (browsers lower-case host names). */
const PREVIEW_DOMAIN_PATTERN =
  '^(?=.{1,200}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$';

/** Previews of sessions' servers (docs/previews.md): how long the links made for them last, and the host-name form. */
export const PreviewSchema = Type.Object(
  {
    linkMinutes: Type.Integer({
      minimum: 1,
      maximum: 10_080,
      default: 60,
      description: 'a link lasts this long unless asked otherwise',
    }),
    maxLinkMinutes: Type.Integer({
      minimum: 1,
      maximum: 10_080,
      default: 1440,
      description: 'the longest a link may be asked to last',
    }),
    domain: Type.Optional(
      Type.String({
        pattern: PREVIEW_DOMAIN_PATTERN,
        description:
          'the host-name form: each exposed port is also served at the root of {port}-{key}.{domain} (e.g. preview.localhost; a wildcard DNS name for this domain must reach the service)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type PreviewConfig = Static<typeof PreviewSchema>;

/** The preview section: the file's, with TOOLGATE_PREVIEW_DOMAIN over its domain. */
export function previewConfig(
  domainEnv: string | undefined,
  file: Partial<PreviewConfig> | undefined,
): PreviewConfig {
  const domain = domainEnv?.trim().toLowerCase() || undefined;
  if (domain !== undefined && !new RegExp(PREVIEW_DOMAIN_PATTERN).test(domain)) {
    throw new ConfigError(
      `TOOLGATE_PREVIEW_DOMAIN must be a DNS name of two labels or more (e.g. preview.localhost), got "${domainEnv}"`,
    );
  }
  return withDefaults(PreviewSchema, { ...file, ...(domain ? { domain } : {}) });
}
