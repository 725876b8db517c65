// The transfers' config (docs/transfer.md): sessions cloned from git (`git`), archives unpacked into
// workspaces (`archive`) and uploaded blobs (`blobs`).
import { Type, type Static } from 'typebox';

export const GitSchema = Type.Object(
  {
    allowedHosts: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description:
        'Hosts sessions may be cloned from ("github.com", or "host:port" for one port); "file:///dir" allows local repositories under dir',
    }),
    timeoutSeconds: Type.Integer({
      minimum: 1,
      default: 300,
      description: 'A clone taking longer is stopped',
    }),
  },
  { additionalProperties: false },
);
export type GitConfig = Static<typeof GitSchema>;

export const ArchiveSchema = Type.Object(
  {
    maxEntries: Type.Integer({ minimum: 1, default: 50_000, description: 'Entries one archive may have' }),
    maxBytes: Type.Integer({
      minimum: 1024,
      default: 1024 * 1024 * 1024,
      description: 'Bytes of content one archive may extract to',
    }),
    maxRatio: Type.Number({
      minimum: 1,
      default: 200,
      description: 'Extracted bytes per archive byte (zip bombs), checked past ratioFloorBytes',
    }),
    ratioFloorBytes: Type.Integer({
      minimum: 0,
      default: 16 * 1024 * 1024,
      description: 'The ratio is not checked before this many bytes were extracted',
    }),
  },
  { additionalProperties: false },
);
export type ArchiveConfig = Static<typeof ArchiveSchema>;

export const BlobsSchema = Type.Object(
  {
    ttlSeconds: Type.Integer({
      minimum: 1,
      default: 3600,
      description: 'How long an uploaded blob (POST /v1/blobs) is kept',
    }),
  },
  { additionalProperties: false },
);
export type BlobsConfig = Static<typeof BlobsSchema>;
