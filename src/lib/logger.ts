// The subset of pino's logger that code below the app is given (tools, the runtime, policies, sources):
// nothing depends on pino itself.
export interface ToolLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}
