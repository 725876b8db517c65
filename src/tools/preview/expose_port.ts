// expose_port: makes one of the session's ports reachable through toolgate and returns a link to it.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';

const Input = Type.Object(
  {
    port: Type.Integer({
      minimum: 1,
      maximum: 65535,
      description: 'The TCP port a server in this session listens on',
    }),
    minutes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10_080,
        description: "How long the returned link lasts (default: the service's)",
      }),
    ),
  },
  { additionalProperties: false },
);

const Output = Type.Object({
  port: Type.Integer(),
  path: Type.String({
    description: 'The link on this service: /v1/previews/{token}/ (prefix it with the service URL)',
  }),
  expiresAt: Type.String({ format: 'date-time' }),
  tokenPath: Type.String({
    description: 'With the session token as Bearer: /v1/sessions/{id}/ports/{port}/',
  }),
  listening: Type.Boolean({ description: 'Whether something listens on the port now' }),
});

export default defineTool({
  name: 'expose_port',
  category: 'preview',
  description:
    "Expose a TCP port of this session (a dev server, a web app) so people and programs can reach it through toolgate, and get a signed link that opens it in a browser. The server must listen inside the session (127.0.0.1, ::1 or all addresses). The app is served under a path prefix: relative URLs work, absolute paths (/app.js) need the app's base path set to the link's path. Refused when the session's profile does not allow previews.",
  capabilities: { executesCommands: true, idempotent: true },
  input: Input,
  output: Output,
  examples: [{ port: 8000 }],
  async execute(input, ctx) {
    const { preview, runtimes } = ctx.services;
    await preview.expose(ctx.session, input.port, 'tool');
    const link = await preview.link(ctx.session, input.port, input.minutes);
    const runtime = runtimes.for(ctx.session);
    const listening =
      runtime.state === 'running' &&
      (await runtime.call('listPorts', {})).result.ports.some((entry) => entry.port === input.port);
    return {
      port: input.port,
      path: link.path,
      expiresAt: link.expiresAt,
      tokenPath: `/v1/sessions/${ctx.session.id}/ports/${input.port}/`,
      listening,
    };
  },
  render: (data) =>
    `Port ${data.port} is exposed: ${data.path} (link valid until ${data.expiresAt})` +
    (data.listening ? '' : '\nNothing listens on it yet: start the server, then open the link.'),
});
