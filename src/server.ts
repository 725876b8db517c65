// Entry point: config → buildApp → listen; graceful shutdown on SIGTERM/SIGINT (a second signal exits at once).
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { installGracefulShutdown } from './ops/shutdown.js';
import { explainListenError } from './ops/startup.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`toolgate: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const app = await buildApp(config, { terminal: process.stdout.isTTY === true });
  const { adminKey } = app.services;
  if (adminKey.source === 'generated') {
    // The key never goes into the log stream (collectors keep logs for long): the log says where it is,
    // and only a person at an interactive terminal sees the key itself, once.
    app.log.warn({ file: adminKey.file }, `generated an admin key, stored in ${adminKey.file} (mode 0600)`);
    if (process.stderr.isTTY) {
      process.stderr.write(`\ntoolgate: your admin key (shown once, here only): ${adminKey.key}\n\n`);
    }
  } else if (adminKey.source === 'file') {
    app.log.info({ file: adminKey.file }, 'admin key loaded from file');
  }
  installGracefulShutdown(app, {
    graceMs: config.shutdown.graceSeconds * 1000,
    exit: (code) => process.exit(code),
  });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    // Stop what buildApp started (runtimes, timers) before the process exits with the reason.
    await Promise.race([app.close(), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
    throw explainListenError(err, config.host, config.port);
  }
}

main().catch((err) => {
  process.stderr.write(`toolgate: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
