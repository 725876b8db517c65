// Many workspace files in one runtime round trip, split back into one Buffer (or undefined) per path.
import type { Workspace } from './workspace.js';

export async function readFiles(
  workspace: Workspace,
  paths: string[],
  maxBytesEach: number,
): Promise<(Buffer | undefined)[]> {
  if (paths.length === 0) return [];
  const { result, payload } = await workspace.call('readFiles', { paths, maxBytesEach });
  let offset = 0;
  return result.sizes.map((size) => {
    if (size === null) return undefined;
    const bytes = payload.subarray(offset, offset + size);
    offset += size;
    return bytes;
  });
}
