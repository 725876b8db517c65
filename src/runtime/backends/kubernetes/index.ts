// The kubernetes backend (placeholder while being written).
import type { KubernetesBackendConfig } from '../../../config.js';
import type { RuntimeBackend } from '../types.js';

export async function createKubernetesBackend(
  _config: KubernetesBackendConfig,
  _options: { dataDir: string },
): Promise<RuntimeBackend> {
  throw new Error('not yet');
}
