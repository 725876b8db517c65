// The permissions policy: the session's profile, categories and excluded tools (fixed when the session is
// made, ./session-policy.ts) decide which tools it may call. Keeps no state of its own.
import { definePolicy } from '../../contract/policy.js';
import { authorize } from './step.js';

export const permissionsPolicy = definePolicy({
  name: 'permissions',
  step: 'authorize',
  stage: 'check',
  create: () => undefined,
  middleware: () => authorize(),
});
