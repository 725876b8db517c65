// Loads tool plugins: every .js/.mjs/.ts module in TOOLGATE_PLUGINS_DIR. A module exports defineTool(...)
// results (default or named, single or arrays) or a default factory `(kit) => tools` that receives
// defineTool, Type and the error helpers, so a plugin needs no import from toolgate's source.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Type } from 'typebox';
import { toolgateError } from '../lib/errors.js';
import { defineTool, isToolDefinition, type AnyTool } from './tool.js';

export const pluginKit = { defineTool, Type, toolgateError } as const;
export type PluginKit = typeof pluginKit;

const MODULE_FILE = /\.(m?js|ts)$/;

export class PluginLoadError extends Error {
  constructor(file: string, reason: string) {
    super(`plugin ${file}: ${reason}`);
    this.name = 'PluginLoadError';
  }
}

export async function loadPluginTools(dir: string): Promise<{ file: string; tools: AnyTool[] }[]> {
  let names: string[];
  try {
    names = (await fs.readdir(dir))
      .filter((name) => MODULE_FILE.test(name) && !name.endsWith('.d.ts'))
      .sort();
  } catch (err) {
    throw new PluginLoadError(dir, `cannot read the plugins directory (${(err as Error).message})`);
  }
  const loaded: { file: string; tools: AnyTool[] }[] = [];
  for (const name of names) {
    let mod: Record<string, unknown>;
    try {
      mod = await import(pathToFileURL(path.join(dir, name)).href);
    } catch (err) {
      throw new PluginLoadError(name, `failed to load: ${(err as Error).message}`);
    }
    const tools = await collectTools(mod, name);
    if (tools.length === 0)
      throw new PluginLoadError(name, 'exports no tool (use defineTool from the plugin kit)');
    loaded.push({ file: name, tools });
  }
  return loaded;
}

async function collectTools(mod: Record<string, unknown>, file: string): Promise<AnyTool[]> {
  const found: AnyTool[] = [];
  const take = (value: unknown) => {
    for (const item of Array.isArray(value) ? value : [value]) if (isToolDefinition(item)) found.push(item);
  };
  for (const [key, value] of Object.entries(mod)) {
    if (key === 'default' && typeof value === 'function') {
      try {
        take(await (value as (kit: PluginKit) => unknown)(pluginKit));
      } catch (err) {
        throw new PluginLoadError(file, `factory threw: ${(err as Error).message}`);
      }
    } else {
      take(value);
    }
  }
  return [...new Set(found)];
}
