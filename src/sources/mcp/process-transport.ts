// An MCP transport over the stdio of a process the session runtime started: newline-delimited JSON-RPC,
// framed with the SDK's own ReadBuffer/serializeMessage, so the SDK's Client speaks to a server that runs
// inside the sandbox exactly as it would over its StdioClientTransport.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { SandboxedProcess } from '../../runtime/runner/types.js';

export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly buffer = new ReadBuffer();
  private closed = false;

  constructor(
    private readonly child: SandboxedProcess,
    /** Lines the server wrote on stderr (its logs), for the service log. */
    private readonly onStderr: (text: string) => void,
  ) {}

  async start(): Promise<void> {
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.buffer.readMessage();
        } catch (err) {
          this.onerror?.(err as Error);
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
    this.child.stderr.on('data', (chunk: Buffer) => this.onStderr(chunk.toString('utf8')));
    void this.child.exited.then(() => this.finish());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error('the MCP server process has ended');
    this.child.stdin.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    this.child.kill();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer.clear();
    this.onclose?.();
  }
}
