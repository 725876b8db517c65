// Handlers for the TreeOps group (see ../ops/tree.ts).
import type { TreeOps } from '../ops/tree.js';
import type { Handlers } from './handler.js';

export const treeHandlers: Handlers<TreeOps> = {};
