// The unified diff of one file's change that edit results show, cut at the output limit.
import { createTwoFilesPatch } from 'diff';

export function unifiedDiff(relative: string, before: string, after: string, maxBytes: number) {
  const full = createTwoFilesPatch(`a/${relative}`, `b/${relative}`, before, after, undefined, undefined, {
    context: 3,
  });
  const diff = full.split('\n').slice(1).join('\n'); // drop the "====" banner line
  if (Buffer.byteLength(diff) <= maxBytes) return { diff, diffTruncated: false };
  return {
    diff: `${Buffer.from(diff)
      .subarray(0, maxBytes)
      .toString('utf8')
      .replace(/\uFFFD$/, '')}\n… [diff truncated]`,
    diffTruncated: true,
  };
}
