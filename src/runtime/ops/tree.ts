// Whole subtrees moved in and out of the workspace (history of deleted directories, undo).
export interface TreeOps {}
