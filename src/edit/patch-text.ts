// A patch as apply_patch receives it, in either format it accepts: a V4A patch ("*** Begin Patch", what
// OpenAI's models write) or a unified diff (git diff, diff -u), told apart by the text itself. Each gives
// the paths to lock and, per file, a plan of the new content (patch-plan.ts, v4a-plan.ts).
import type { StructuredPatch } from 'diff';
import type { EditContext } from './edit-context.js';
import { parseUnifiedDiff } from './patch.js';
import { planFile, type FilePlan } from './patch-plan.js';
import { parseV4aPatch, isV4aPatch, type V4aOperation } from './v4a-parse.js';
import { planV4aOperation, v4aPaths } from './v4a-plan.js';

export type PatchFormat = 'unified' | 'v4a';

export interface ParsedPatchText {
  format: PatchFormat;
  /** Every path the patch reads or writes, as written in it. */
  paths: string[];
  /** One plan per file section, in patch order; reads files, writes nothing. */
  plan(ctx: EditContext, expected: Record<string, string>): Promise<FilePlan[]>;
}

const unifiedPaths = (p: StructuredPatch): string[] =>
  [p.oldFileName, p.newFileName]
    .filter((name): name is string => !!name && name !== '/dev/null')
    .map((name) => name.replace(/^[ab]\//, ''));

async function inOrder<T>(items: readonly T[], plan: (item: T) => Promise<FilePlan>): Promise<FilePlan[]> {
  const plans: FilePlan[] = [];
  for (const item of items) plans.push(await plan(item));
  return plans;
}

export function parsePatchText(text: string): ParsedPatchText {
  if (isV4aPatch(text)) {
    const operations: V4aOperation[] = parseV4aPatch(text);
    return {
      format: 'v4a',
      paths: operations.flatMap(v4aPaths),
      plan: (ctx, expected) => inOrder(operations, (op) => planV4aOperation(ctx, op, expected)),
    };
  }
  const patches = parseUnifiedDiff(text);
  return {
    format: 'unified',
    paths: patches.flatMap(unifiedPaths),
    plan: (ctx, expected) => inOrder(patches, (p) => planFile(ctx, p, expected)),
  };
}
