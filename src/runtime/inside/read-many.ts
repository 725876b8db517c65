// Reading many files for one operation (source files for the code index, contents for a snapshot): a
// few reads in flight at a time, and the contents sent back as one payload with each file's size
// (null where a file could not be read), so nothing is base64 inside JSON.

/** Files read at once: enough to keep the disk busy, few enough to bound memory. */
const PARALLEL_READS = 16;

/** Runs `readOne(i)` for every index, PARALLEL_READS at a time; it returns the bytes or null. */
export async function readMany(
  count: number,
  readOne: (i: number) => Promise<Buffer | null>,
): Promise<{ sizes: (number | null)[]; payload: Buffer }> {
  const contents: (Buffer | null)[] = new Array(count).fill(null);
  for (let i = 0; i < count; i += PARALLEL_READS) {
    const batch = Array.from({ length: Math.min(PARALLEL_READS, count - i) }, (_, j) => i + j);
    await Promise.all(batch.map(async (k) => (contents[k] = await readOne(k))));
  }
  return {
    sizes: contents.map((c) => (c === null ? null : c.length)),
    payload: Buffer.concat(contents.filter((c): c is Buffer => c !== null)),
  };
}
