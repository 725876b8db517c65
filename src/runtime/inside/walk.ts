// Handlers for the WalkOps group (see ../ops/walk.ts).
import type { WalkOps } from '../ops/walk.js';
import type { Handlers } from './handler.js';

export const walkHandlers: Handlers<WalkOps> = {};
