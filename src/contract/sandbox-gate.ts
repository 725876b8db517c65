// Without a working sandbox the execution category is disabled: its tools stay listed (so a model and
// an operator can see why) but say so in their description and tags, and refuse every call with 503.
import { toolgateError } from '../lib/errors.js';
import type { AnyTool } from './tool.js';
import type { SandboxStatus } from '../runtime/runner/types.js';

export const DISABLED_TAG = 'disabled';

const needsSandbox = (tool: AnyTool): boolean =>
  tool.category === 'execution' || tool.capabilities.executesCommands === true;

export function gateOnSandbox(tool: AnyTool, status: SandboxStatus): AnyTool {
  if (status.available || !needsSandbox(tool)) return tool;
  return {
    ...tool,
    description: `[DISABLED: no command sandbox on this server] ${tool.description}`,
    tags: [...tool.tags, DISABLED_TAG],
    async execute() {
      throw toolgateError('SANDBOX_UNAVAILABLE', `${tool.name} is disabled: ${status.detail}`, {
        suggestion: 'Use the file tools instead, or ask the operator to enable a command sandbox.',
      });
    },
  };
}
