// A piece of output a call emits while it runs: made by jobs and tools, streamed by the engine to SSE
// clients and the activity stream.
export interface OutputChunk {
  stream: 'stdout' | 'stderr' | 'log';
  chunk: string;
}
