// The built-in tools: the only place that knows them all. Adding a tool is one file and one line here.
import type { AnyTool } from '../core/tool.js';
import read_file from './filesystem/read_file.js';
import list_directory from './filesystem/list_directory.js';
import write_file from './edit/write_file.js';

export const BUILTIN_TOOLS: AnyTool[] = [read_file, list_directory, write_file];
