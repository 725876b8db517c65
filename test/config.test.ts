import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { tempDir } from './helpers/app.js';

function withConfigFile(content: unknown) {
  const file = path.join(tempDir(), 'toolgate.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('config', () => {
  it('has defaults that make a fresh start work', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 8080, host: '127.0.0.1', sandbox: 'auto', logLevel: 'info' });
    expect(config.dataDir).toBe(path.resolve('data'));
    expect(Object.isFrozen(config.limits)).toBe(true);
  });

  it('names the bad key of a config file', () => {
    const file = withConfigFile({ limits: { readMaxBytez: 5 } });
    expect(() => loadConfig({ TOOLGATE_CONFIG: file })).toThrow(/\/limits: unknown key\(s\) "readMaxBytez"/);
    const typed = withConfigFile({ rateLimits: { filesystem: { limit: 'many', windowSeconds: 1 } } });
    expect(() => loadConfig({ TOOLGATE_CONFIG: typed })).toThrow(/\/rateLimits\/filesystem\/limit/);
  });

  it('refuses a table key its pattern does not allow, and says the pattern', () => {
    // Keys no session, header or server name could ever match: before, they were accepted and unusable.
    const cases: Array<[object, RegExp]> = [
      [
        { runtimeBackend: { type: 'docker', images: { base: 'a:1', 'Py 3!': 'b:1' } } },
        /\/runtimeBackend\/images: unknown key\(s\) "Py 3!" \(keys must match \^\[a-z\]/,
      ],
      [
        { runtimeBackend: { type: 'docker', pool: { BASE: 1 } } },
        /\/runtimeBackend\/pool: unknown key\(s\) "BASE" \(keys must match/,
      ],
      [
        { apiKeys: { 'CI Bot': { key: 'tga_0123456789abcdef0123' } } },
        /\/apiKeys: unknown key\(s\) "CI Bot"/,
      ],
      [{ mcpServers: { 'My-Server': { command: ['x'] } } }, /\/mcpServers: unknown key\(s\) "My-Server"/],
    ];
    for (const [config, message] of cases) {
      expect(() => loadConfig({ TOOLGATE_CONFIG: withConfigFile(config) })).toThrow(message);
    }
  });

  it('takes the preview domain from TOOLGATE_PREVIEW_DOMAIN, lower-cased, and refuses what is no DNS name', () => {
    expect(loadConfig({ TOOLGATE_PREVIEW_DOMAIN: 'Preview.Localhost' }).preview.domain).toBe(
      'preview.localhost',
    );
    expect(loadConfig({}).preview.domain).toBeUndefined();
    for (const bad of ['localhost', 'a..b', '-x.example', 'x_y.example', 'http://x.example']) {
      expect(() => loadConfig({ TOOLGATE_PREVIEW_DOMAIN: bad })).toThrow(
        /TOOLGATE_PREVIEW_DOMAIN must be a DNS name/,
      );
    }
  });

  it('rejects unreadable JSON, bad enums and bad numbers with a ConfigError', () => {
    expect(() => loadConfig({ TOOLGATE_CONFIG: withConfigFile('{nope') })).toThrow(ConfigError);
    expect(() => loadConfig({ TOOLGATE_SANDBOX: 'podman' })).toThrow(/TOOLGATE_SANDBOX/);
    expect(() => loadConfig({ PORT: '99999' })).toThrow(/PORT/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
  });

  it('turns language servers on by default, off with TOOLGATE_LSP=off, and takes their budgets from the file', () => {
    expect(loadConfig({}).lsp).toEqual({
      enabled: true,
      idleSeconds: 600,
      startSeconds: 60,
      budgetMs: 2000,
      editBudgetMs: 2000,
    });
    const file = withConfigFile({ lsp: { budgetMs: 500, idleSeconds: 30, editBudgetMs: 800 } });
    expect(loadConfig({ TOOLGATE_CONFIG: file, TOOLGATE_LSP: 'off' }).lsp).toEqual({
      enabled: false,
      idleSeconds: 30,
      startSeconds: 60,
      budgetMs: 500,
      editBudgetMs: 800,
    });
    expect(() => loadConfig({ TOOLGATE_LSP: 'yes' })).toThrow(/TOOLGATE_LSP must be "on" or "off"/);
    expect(() => loadConfig({ TOOLGATE_CONFIG: withConfigFile({ lsp: { budgetMs: 0 } }) })).toThrow(/lsp/);
  });

  it('takes the database URL from DATABASE_URL over the file, and refuses other schemes without echoing them', () => {
    expect(loadConfig({}).database.url).toBeUndefined();
    const file = withConfigFile({ database: { url: 'postgresql://app@db.internal/toolgate' } });
    expect(loadConfig({ TOOLGATE_CONFIG: file }).database.url).toBe('postgresql://app@db.internal/toolgate');
    const fromEnv = 'postgres://app:s3cret@127.0.0.1:5432/other';
    expect(loadConfig({ TOOLGATE_CONFIG: file, DATABASE_URL: fromEnv }).database.url).toBe(fromEnv);
    const refused = () => loadConfig({ DATABASE_URL: 'mysql://app:s3cret@db/toolgate' });
    expect(refused).toThrow(/DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/);
    expect(refused).not.toThrow(/s3cret/);
    const badFile = withConfigFile({ database: { url: 'sqlite:///x.db' } });
    expect(() => loadConfig({ TOOLGATE_CONFIG: badFile })).toThrow(/\/database\/url/);
  });

  it('merges operator profiles and limits over the defaults', () => {
    const file = withConfigFile({
      profiles: { reviewer: { permissions: ['read'], categories: ['filesystem'] } },
      limits: { outputMaxBytes: 4096 },
    });
    const config = loadConfig({ TOOLGATE_CONFIG: file });
    expect(config.profiles.reviewer.categories).toEqual(['filesystem']);
    expect(config.profiles['read-only'].permissions).toEqual(['read']);
    expect(config.limits.outputMaxBytes).toBe(4096);
    expect(config.limits.readMaxBytes).toBe(10 * 1024 * 1024);
  });
});

describe('replica config', () => {
  it('is off by default: one process, nothing leased or forwarded', () => {
    expect(loadConfig({}).replica).toBeUndefined();
  });

  it('takes the id and URL from the environment, with lease timing defaults', () => {
    expect(
      loadConfig({ TOOLGATE_REPLICA_ID: 'r1', TOOLGATE_REPLICA_URL: 'http://10.0.0.5:8080/' }).replica,
    ).toEqual({ id: 'r1', url: 'http://10.0.0.5:8080', leaseMs: 4000, heartbeatMs: 1000 });
  });

  it('refuses half a replica identity and a bad URL', () => {
    expect(() => loadConfig({ TOOLGATE_REPLICA_ID: 'r1' })).toThrow(/TOOLGATE_REPLICA_URL/);
    expect(() => loadConfig({ TOOLGATE_REPLICA_ID: 'r1', TOOLGATE_REPLICA_URL: 'ftp://x' })).toThrow(
      ConfigError,
    );
  });
});
