// Checks the call's arguments against the tool's input schema and applies defaults.
import type { Middleware } from '../contract/call.js';

export const validate = (): Middleware => (call, next) => {
  call.input = call.entry.validator.validate(call.request.input);
  return next();
};
