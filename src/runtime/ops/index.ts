// Every operation a session runtime performs, by name: the contract between the service's tools and
// the code that runs inside the sandbox. Each group lives in its own file.
import type { CommandOps } from './commands.js';
import type { FileOps } from './files.js';
import type { WalkOps } from './walk.js';
import type { SourceOps } from './source.js';
import type { TreeOps } from './tree.js';
import type { SnapshotOps } from './snapshot.js';
import type { TransferOps } from './transfer.js';
import type { ShellOps } from './shells.js';
import type { TerminalOps } from './terminals.js';
import type { KernelOps } from './kernels.js';
import type { PortOps } from './ports.js';

export type Ops = FileOps &
  CommandOps &
  WalkOps &
  SourceOps &
  TreeOps &
  SnapshotOps &
  TransferOps &
  ShellOps &
  TerminalOps &
  KernelOps &
  PortOps;
export type OpName = keyof Ops;
export type OpArgs<K extends OpName> = Ops[K]['args'];
export type OpResult<K extends OpName> = Ops[K]['result'];

export type { FileStat, DirEntry, EntryType } from './files.js';
export type { ListeningPort } from './ports.js';
