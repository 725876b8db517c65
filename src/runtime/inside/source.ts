// Handlers for the SourceOps group (see ../ops/source.ts).
import type { SourceOps } from '../ops/source.js';
import type { Handlers } from './handler.js';

export const sourceHandlers: Handlers<SourceOps> = {};
