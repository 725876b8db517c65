// Loads the docker backend, whose client (dockerode) is an optional package: a production install
// leaves it out, and choosing the backend there stops the start with one line saying how to add it.
import { loadOptional, type OptionalPackage } from '../../../lib/optional-package.js';

/** The Docker Engine client, as package.json's peerDependencies gives it. */
export const DOCKER_PACKAGE: OptionalPackage = { name: 'dockerode', range: '^5.0.1' };

export const loadDockerBackend = () =>
  loadOptional('the docker backend (TOOLGATE_SANDBOX=docker)', DOCKER_PACKAGE, () => import('./index.js'));
