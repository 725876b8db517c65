// Loads the PostgreSQL driver, whose client (node-postgres, `pg`) is an optional package: a production
// install leaves it out unless asked for (the image keeps it), and a postgres:// URL there stops the start
// with one line saying how to add it.
import { loadOptional, type OptionalPackage } from '../../../lib/optional-package.js';

/** node-postgres, as package.json's peerDependencies gives it. */
export const POSTGRES_PACKAGE: OptionalPackage = { name: 'pg', range: '^8.23.1' };

export const loadPostgres = () =>
  loadOptional('a postgres:// database URL (DATABASE_URL)', POSTGRES_PACKAGE, () => import('./open.js'));
