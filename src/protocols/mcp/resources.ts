// The session's workspace files as MCP resources: resources/list names every file (heavy folders such
// as node_modules not entered, at most limits.maxEntries), resources/read returns one file's content,
// as text when it is text and as a base64 blob otherwise. Allowed when read_file is; each read is
// audited like a raw file download (file_download, entry point mcp).
import path from 'node:path';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { isToolgateError } from '../../lib/errors.js';
import { DEFAULT_IGNORED_DIRS } from '../../search/ignored-dirs.js';
import { Workspace } from '../../runtime/workspace.js';
import type { Config } from '../../config.js';
import type { RuntimeManager } from '../../runtime/manager.js';
import type { SessionRecord } from '../../store/sessions.js';
import { mimeType } from '../../lib/mime.js';
import { looksBinary } from '../../lib/text.js';
import { beginTransfer, type TransferServices } from '../../engine/transfer-gate.js';

/** The services MCP resources are listed and read with (transfers, checked and audited). */
export interface ResourceServices extends TransferServices {
  readonly config: Config;
  readonly runtimes: RuntimeManager;
}

export const RESOURCE_SCHEME = 'workspace://';

export const resourceUri = (relative: string): string =>
  `${RESOURCE_SCHEME}/${relative.split('/').map(encodeURIComponent).join('/')}`;

function pathOf(uri: string): string {
  if (!uri.startsWith(`${RESOURCE_SCHEME}/`))
    throw new McpError(
      ErrorCode.InvalidParams,
      `Unknown resource ${uri.slice(0, 200)}; workspace files are ${RESOURCE_SCHEME}/<path>`,
    );
  try {
    return decodeURIComponent(uri.slice(RESOURCE_SCHEME.length + 1));
  } catch {
    throw new McpError(ErrorCode.InvalidParams, 'Malformed resource URI');
  }
}

/** Our errors as MCP errors: a missing file is "resource not found" (-32002), the rest keep their code. */
const asMcpError = (err: unknown): unknown =>
  isToolgateError(err)
    ? new McpError(err.code === 'FILE_NOT_FOUND' ? -32002 : ErrorCode.InvalidParams, err.message, {
        code: err.code,
      })
    : err;

/** Permission check and audit row, refusals as MCP errors too. */
function begin(
  services: ResourceServices,
  session: SessionRecord,
  name: string,
  input: Record<string, unknown>,
) {
  try {
    return beginTransfer(services, { caller: 'session', entryPoint: 'mcp' }, session, {
      name,
      like: 'read_file',
      input,
    });
  } catch (err) {
    throw asMcpError(err);
  }
}

export async function listResources(services: ResourceServices, session: SessionRecord) {
  const transfer = begin(services, session, 'resource_list', {});
  try {
    const workspace = new Workspace(services.runtimes.for(session));
    const { result } = await workspace.call('listDirectory', {
      path: '.',
      depth: 64,
      ignore: [],
      heavy: [...DEFAULT_IGNORED_DIRS],
      max: services.config.limits.maxEntries,
    });
    const resources = result.entries
      .filter((entry) => entry.type === 'file')
      .map((entry) => ({
        uri: resourceUri(entry.path),
        name: entry.path,
        mimeType: mimeType(path.posix.basename(entry.path), true),
        size: entry.size,
      }));
    transfer.end({ bytesIn: 0, bytesOut: 0 });
    return { resources };
  } catch (err) {
    transfer.end({ bytesIn: 0, bytesOut: 0, error: err });
    throw asMcpError(err);
  }
}

export async function readResource(services: ResourceServices, session: SessionRecord, uri: string) {
  const filePath = pathOf(uri);
  const transfer = begin(services, session, 'file_download', { path: filePath });
  try {
    const workspace = new Workspace(services.runtimes.for(session));
    const file = await workspace.readFile(filePath, services.config.limits.readMaxBytes);
    transfer.end({ bytesIn: 0, bytesOut: file.bytes.length });
    const binary = looksBinary(file.bytes.subarray(0, 8192));
    const mime = mimeType(path.posix.basename(file.relative), binary);
    const content = binary
      ? { uri: resourceUri(file.relative), mimeType: mime, blob: file.bytes.toString('base64') }
      : { uri: resourceUri(file.relative), mimeType: mime, text: file.bytes.toString('utf8') };
    return { contents: [content] };
  } catch (err) {
    transfer.end({ bytesIn: 0, bytesOut: 0, error: err });
    throw asMcpError(err);
  }
}
