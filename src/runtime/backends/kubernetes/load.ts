// Loads the kubernetes backend, whose client (@kubernetes/client-node, 58 MB) is an optional package: a
// production install leaves it out, and choosing the backend there stops the start with one line saying
// how to add it.
import { loadOptional, type OptionalPackage } from '../../../lib/optional-package.js';

/** The Kubernetes API client, as package.json's peerDependencies gives it. */
export const KUBERNETES_PACKAGE: OptionalPackage = { name: '@kubernetes/client-node', range: '~1.4.0' };

export const loadKubernetesBackend = () =>
  loadOptional(
    'the kubernetes backend (TOOLGATE_SANDBOX=kubernetes)',
    KUBERNETES_PACKAGE,
    () => import('./index.js'),
  );
