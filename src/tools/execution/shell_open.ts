// shell_open: opens a named persistent shell in the session's runtime (shell_exec opens "main" by itself).
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { ShellNameInput, ShellView, shellStart } from '../../jobs/shell-view.js';

export default defineTool({
  name: 'shell_open',
  category: 'execution',
  description:
    'Open a named persistent bash shell (shell_exec runs commands in it; "main" opens on first use ' +
    'without this). It keeps cwd, variables, functions and aliases between commands, until shell_close, ' +
    "shell_restart, or the server's idle close. 409 ALREADY_EXISTS if it is open.",
  capabilities: { executesCommands: true, readsFiles: true, writesFiles: true },
  input: Type.Object(
    {
      shell: ShellNameInput,
      cwd: Type.String({ default: '.', description: 'Starting directory, relative to the workspace root' }),
    },
    { additionalProperties: false },
  ),
  output: ShellView,
  examples: [{ shell: 'server', cwd: 'backend' }],
  async execute(input, ctx) {
    const { runner, shells } = ctx.services;
    const start = shellStart(input.shell, input.cwd, runner.commandEnv({}), ctx.limits.commandMaxTimeoutMs);
    return shells.open(ctx.workspace.runtime, start, false);
  },
  render: (data) => `Shell ${data.name} is open in ${data.cwd} (pid ${data.pid}).`,
});
