// The URL of a job module for the CpuPool, beside the calling module: .ts when run from source (tsx,
// vitest), .js when built — the same switch as the worker's own file.
export const jobModule = (callerUrl: string, relativeName: string): string =>
  new URL(`${relativeName}${callerUrl.endsWith('.ts') ? '.ts' : '.js'}`, callerUrl).href;
