// shell_restart: a fresh bash under the same name; whatever the old one held (cwd, variables, functions,
// the command it was running) is gone. Also starts a shell that died, or was never opened.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { DEFAULT_SHELL, ShellNameInput, ShellView, shellStart } from '../../jobs/shell-view.js';

export default defineTool({
  name: 'shell_restart',
  category: 'execution',
  description:
    'Restart a persistent shell: kill it (and what it runs) and start a fresh bash under the same name, ' +
    'in the workspace root. Its state is lost. Use it on a shell reported dead (SHELL_DEAD).',
  capabilities: { executesCommands: true, readsFiles: true, writesFiles: true, destructive: true },
  input: Type.Object(
    {
      shell: ShellNameInput,
      cwd: Type.String({ default: '.', description: 'Starting directory, relative to the workspace root' }),
    },
    { additionalProperties: false },
  ),
  output: ShellView,
  examples: [{ shell: DEFAULT_SHELL, cwd: '.' }],
  async execute(input, ctx) {
    const { runner, shells } = ctx.services;
    const start = shellStart(input.shell, input.cwd, runner.commandEnv({}), ctx.limits.commandMaxTimeoutMs);
    return shells.open(ctx.workspace.runtime, start, true);
  },
  render: (data) =>
    `Shell ${data.name} restarted in ${data.cwd} (pid ${data.pid}); its earlier state is gone.`,
});
