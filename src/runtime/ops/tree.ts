// Whole subtrees moved out of and back into the workspace: a deleted directory is packed (its entries
// here, its file contents concatenated in the payload) so undo_edit can unpack it later.

export interface TreeEntry {
  /** Relative to the packed directory ("" for the directory itself), POSIX separators. */
  readonly path: string;
  readonly type: 'file' | 'directory' | 'symlink';
  readonly mode: number;
  /** Files: bytes in the payload, in entry order. */
  readonly size?: number;
  readonly linkTarget?: string;
}

export interface TreeOps {
  /** Packs a directory (payload: the files' bytes); FILE_TOO_LARGE past maxBytes. FIFOs etc. are left out. */
  packTree: {
    args: { path: string; maxBytes: number };
    result: { relative: string; entries: TreeEntry[]; bytes: number };
  };
  /** Recreates a packed directory at a path where nothing is (payload: the files' bytes). */
  unpackTree: { args: { path: string; entries: TreeEntry[] }; result: { relative: string } };
}
