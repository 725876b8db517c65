// The tool-switches policy: the operator's enable/disable of tools and categories (persisted in the
// database, held in memory), checked right after the tool is resolved. Its routes: ./routes.ts.
import { definePolicy } from '../../contract/policy.js';
import { ToolSwitches } from './service.js';
import { enabled } from './step.js';
import { ToolSwitchStore } from './store.js';

export const toolSwitchesPolicy = definePolicy({
  name: 'tool-switches',
  step: 'enabled',
  stage: 'check',
  create: ({ db }) => ToolSwitches.load(new ToolSwitchStore(db)),
  middleware: (switches) => enabled(switches),
});
