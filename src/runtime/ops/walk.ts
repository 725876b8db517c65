// Walks of the workspace: list_directory, glob and grep run inside the runtime (ripgrep too).
export interface WalkOps {}
