// The sandbox subsystem's wiring: the sessions' workspace directories and the overlay layers of forks,
// with their lifecycle. src/services.ts composes it.
import path from 'node:path';
import type { Lifecycle } from '../lib/lifecycle.js';
import { OverlayWorkspaces } from './overlay-workspaces.js';
import { WorkspaceManager } from './workspaces.js';

export interface SandboxParts {
  readonly workspaces: WorkspaceManager;
  /** The forks' overlay layers (also reachable as workspaces.overlays). */
  readonly overlays: OverlayWorkspaces;
  readonly lifecycle: Lifecycle;
}

/** Workspaces under the data dir; forks get overlays only where the backend can mount them (bwrap). */
export function wireWorkspaces(dataDir: string, backendName: string): SandboxParts {
  const workspaces = new WorkspaceManager(path.join(dataDir, 'workspaces'));
  const overlays = new OverlayWorkspaces(dataDir, backendName === 'bwrap');
  workspaces.overlays = overlays;
  return {
    workspaces,
    overlays,
    lifecycle: { name: 'workspaces', forgetSession: (id) => workspaces.remove(id) },
  };
}
