// The config that makes @modelcontextprotocol/server-memory (from node_modules) an MCP tool source: run
// by the runtime's own node inside each session's sandbox, node_modules bound read-only, its memory
// file in the session's workspace. Its tools appear as memory__<tool>.
import { realpathSync } from 'node:fs';
import path from 'node:path';

const NODE_MODULES = realpathSync(path.resolve(import.meta.dirname, '../../node_modules'));

export const MEMORY_SERVER_CONFIG = {
  mcpServers: {
    memory: {
      command: 'node',
      args: [path.join(NODE_MODULES, '@modelcontextprotocol/server-memory/dist/index.js')],
      env: { MEMORY_FILE_PATH: '${WORKSPACE}/.memory.jsonl' },
      readOnlyPaths: [NODE_MODULES],
    },
  },
};
