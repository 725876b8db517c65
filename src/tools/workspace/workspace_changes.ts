// workspace_changes: every change to the workspace since the session started (or since a checkpoint),
// whatever made it (tools or commands), as a per-file summary and optionally a git-format diff.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { ChangeReport, reportChanges } from '../../snapshots/report.js';

const Input = Type.Object(
  {
    since: Type.String({
      default: 'start',
      minLength: 1,
      maxLength: 100,
      description: '"start" (the session as created) or a checkpoint id from checkpoint_list',
    }),
    format: Type.Enum(['summary', 'diff'], {
      default: 'summary',
      description: 'summary: paths, status and line counts; diff: also the unified diff (git format)',
    }),
    max_diff_bytes: Type.Integer({
      minimum: 1024,
      maximum: 1024 * 1024 * 1024,
      default: 256 * 1024,
      description: 'Longest diff returned; it is cut after the last whole file that fits',
    }),
  },
  { additionalProperties: false },
);

export default defineTool({
  name: 'workspace_changes',
  category: 'workspace',
  description:
    'Show what changed in the workspace since the session started (or since a checkpoint): added, ' +
    'deleted, modified and renamed files with lines added and removed, and with format "diff" the ' +
    'unified diff in git format. Counts every change, whether a tool or a command made it.',
  capabilities: { readsFiles: true, idempotent: true },
  input: Input,
  output: ChangeReport,
  examples: [{ since: 'start', format: 'summary', max_diff_bytes: 262144 }],
  async execute(input, ctx) {
    return ctx.services.snapshots.changes(ctx.session.id, ctx.workspace, input.since, (set) =>
      reportChanges(set, { diff: input.format === 'diff', maxDiffBytes: input.max_diff_bytes }),
    );
  },
  render: (data) => {
    const lines = data.files.map(
      (f) =>
        `${f.status.padEnd(12)} ${f.oldPath ? `${f.oldPath} → ` : ''}${f.path}` +
        (f.binary ? ' (binary)' : ` +${f.additions} -${f.deletions}`),
    );
    const head = `${data.totals.files} file(s) changed since ${data.since}, +${data.totals.additions} -${data.totals.deletions}`;
    const diff = data.diff ? `\n\n${data.diff}${data.truncated ? '\n[diff truncated]' : ''}` : '';
    return [head, ...lines].join('\n') + diff;
  },
});
