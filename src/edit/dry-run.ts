// The dry_run input flag and dryRun result field every side-effecting built-in shares: the tool makes
// all its checks (paths, freshness, conflicts) and reports what it would do, changing nothing.
import { Type } from 'typebox';

export const DryRun = Type.Boolean({
  default: false,
  description: 'Make every check and report what would happen, without changing anything',
});

export const DryRunResult = Type.Boolean({ description: 'True when nothing was changed (dry_run)' });
