// The innermost step: builds the tool's context (workspace, signal, output sink) and executes it.
import type { ToolContext, ToolServices } from '../contract/context.js';
import { Cancellation } from '../lib/cancellation.js';
import type { ToolLogger } from '../lib/logger.js';
import type { EventHub } from './events.js';
import type { ResolvedCall, RunResult } from '../contract/call.js';

export const runTool =
  (services: ToolServices, events: EventHub, logger: ToolLogger) =>
  async (call: ResolvedCall): Promise<RunResult> => {
    const { request } = call;
    const tool = call.entry.tool;
    const cancel = call.cancel ?? new Cancellation();
    const ctx: ToolContext = {
      callId: call.callId,
      session: request.session,
      ...services.callContext(request.session, cancel),
      // Made when the tool asks: most never do (their runtime operations are cancelled without it).
      get signal() {
        return cancel.signal;
      },
      logger,
      limits: services.config.limits,
      services,
      emit(chunk) {
        request.onOutput?.(chunk);
        events.publish(request.session.id, 'tool_output_chunk', {
          callId: call.callId,
          tool: tool.name,
          ...chunk,
        });
      },
    };
    const data: unknown = await tool.execute(call.input, ctx);
    return { data, extraMetadata: { ...ctx.ioUsage?.() } };
  };
