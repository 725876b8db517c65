// list_ports: the TCP ports the session's processes listen on (read inside its runtime) and which are exposed.
import { defineTool } from '../../contract/tool.js';
import { Type } from 'typebox';
import { portsView, PortsViewSchema, type PortsView } from '../../preview/views.js';

export default defineTool({
  name: 'list_ports',
  category: 'preview',
  description:
    "List the TCP ports listening inside this session (address, and the processes holding each, from /proc/net/tcp of the session's own network namespace), which ports are exposed for previews, and whether this session may expose ports at all.",
  capabilities: { idempotent: true },
  input: Type.Object({}, { additionalProperties: false }),
  output: PortsViewSchema,
  examples: [{}],
  async execute(_input, ctx) {
    return portsView(ctx.services.preview, ctx.services.runtimes, ctx.session);
  },
  render: (data: PortsView) => {
    const exposed = new Set(data.exposed.map((entry) => entry.port));
    const lines = data.listening.map(
      (entry) =>
        `${entry.port} on ${entry.address}${exposed.has(entry.port) ? ' (exposed)' : ''}: ${
          entry.processes.map((p) => `${p.pid} ${p.command}`).join('; ') || 'process not visible'
        }`,
    );
    if (!data.running) lines.push('The session runtime is not running: nothing listens.');
    else if (lines.length === 0) lines.push('Nothing listens.');
    lines.push(
      data.mayExpose
        ? `Exposed: ${[...exposed].join(', ') || 'none'}`
        : 'This session may not expose ports (its profile).',
    );
    return lines.join('\n');
  },
});
