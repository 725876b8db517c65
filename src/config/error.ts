// The one error a bad environment or config file gives: its message names the variable or the key.
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
