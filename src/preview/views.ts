// The shapes the preview tools and routes answer with, and the one function that fills the port list.
import { Type, type Static } from 'typebox';
import type { PreviewService } from './service.js';
import type { RuntimeManager } from '../runtime/manager.js';
import type { SessionRecord } from '../store/sessions.js';

export const ListeningPortSchema = Type.Object({
  port: Type.Integer(),
  address: Type.String({ description: 'the address bound: 0.0.0.0, 127.0.0.1, ::, ::1…' }),
  family: Type.Union([Type.Literal(4), Type.Literal(6)]),
  processes: Type.Array(Type.Object({ pid: Type.Integer(), command: Type.String() })),
});

export const ExposedPortSchema = Type.Object({
  port: Type.Integer(),
  exposedBy: Type.String({ description: 'policy (the profile), tool (expose_port) or admin' }),
  exposedAt: Type.Union([Type.Integer(), Type.Null()]),
});

export const PortsViewSchema = Type.Object({
  mayExpose: Type.Boolean({ description: "whether the session's profile lets it expose ports" }),
  exposed: Type.Array(ExposedPortSchema),
  running: Type.Boolean({ description: 'whether the session runtime runs (else nothing can listen)' }),
  listening: Type.Array(ListeningPortSchema),
});
export type PortsView = Static<typeof PortsViewSchema>;

export const PreviewLinkSchema = Type.Object({
  port: Type.Integer(),
  token: Type.String(),
  path: Type.String({ description: '/v1/previews/{token}/ on this service' }),
  url: Type.String({ description: 'the path on the address this request was made to' }),
  hostUrl: Type.Optional(
    Type.String({
      description:
        'with config preview.domain set: the host-name form, the app at the root of its own host; opening it signs the browser in (a cookie of that host) and drops the token from the address',
    }),
  ),
  expiresAt: Type.String({ format: 'date-time' }),
});

/** Exposed and (when the runtime runs; starting it would find nothing listening) listening ports. */
export async function portsView(
  preview: PreviewService,
  runtimes: RuntimeManager,
  session: SessionRecord,
): Promise<PortsView> {
  const runtime = runtimes.for(session);
  const running = runtime.state === 'running';
  const listening = running ? (await runtime.call('listPorts', {})).result.ports : [];
  return {
    mayExpose: preview.mayExpose(session),
    exposed: [...(await preview.exposed(session))],
    running,
    listening: listening.map((port) => ({ ...port, processes: [...port.processes] })),
  };
}
