// The built-in tools: the only place that knows them all. Adding a tool is one file and one line here.
import type { AnyTool } from '../contract/tool.js';
import read_file from './filesystem/read_file.js';
import list_directory from './filesystem/list_directory.js';
import write_file from './edit/write_file.js';
import edit_file from './edit/edit_file.js';
import multi_edit from './edit/multi_edit.js';
import apply_patch from './edit/apply_patch.js';
import delete_file from './edit/delete_file.js';
import move_file from './edit/move_file.js';
import create_directory from './edit/create_directory.js';
import undo_edit from './edit/undo_edit.js';
import file_info from './filesystem/file_info.js';
import glob from './filesystem/glob.js';
import grep from './filesystem/grep.js';
import run_command from './execution/run_command.js';
import job_output from './execution/job_output.js';
import job_wait from './execution/job_wait.js';
import job_input from './execution/job_input.js';
import job_list from './execution/job_list.js';
import job_kill from './execution/job_kill.js';
import shell_exec from './execution/shell_exec.js';
import shell_open from './execution/shell_open.js';
import shell_restart from './execution/shell_restart.js';
import shell_close from './execution/shell_close.js';
import shell_list from './execution/shell_list.js';
import todo_read from './state/todo_read.js';
import todo_write from './state/todo_write.js';
import search_code from './code/search_code.js';
import get_symbol_info from './code/get_symbol_info.js';
import find_references from './code/find_references.js';
import resolve_symbol from './code/resolve_symbol.js';
import get_imports_exports from './code/get_imports_exports.js';
import build_dependency_graph from './code/build_dependency_graph.js';
import get_codebase_map from './code/get_codebase_map.js';
import diagnostics from './code/diagnostics.js';
import rename_symbol from './code/rename_symbol.js';
import detect_project_type from './project/detect_project_type.js';
import extract_conventions from './project/extract_conventions.js';
import get_project_overview from './project/get_project_overview.js';
import workspace_changes from './workspace/workspace_changes.js';
import checkpoint_create from './workspace/checkpoint_create.js';
import checkpoint_list from './workspace/checkpoint_list.js';
import checkpoint_restore from './workspace/checkpoint_restore.js';
import web_fetch from './web/web_fetch.js';
import exec_command from './execution/exec_command.js';
import write_stdin from './execution/write_stdin.js';
import terminal_resize from './execution/terminal_resize.js';
import terminal_close from './execution/terminal_close.js';
import terminal_list from './execution/terminal_list.js';
import run_code from './execution/run_code.js';
import kernel_interrupt from './execution/kernel_interrupt.js';
import kernel_restart from './execution/kernel_restart.js';
import kernel_close from './execution/kernel_close.js';
import kernel_list from './execution/kernel_list.js';
import list_ports from './preview/list_ports.js';
import expose_port from './preview/expose_port.js';

export const BUILTIN_TOOLS: AnyTool[] = [
  read_file,
  list_directory,
  file_info,
  glob,
  grep,
  write_file,
  edit_file,
  multi_edit,
  apply_patch,
  delete_file,
  move_file,
  create_directory,
  undo_edit,
  run_command,
  job_output,
  job_wait,
  job_input,
  job_list,
  job_kill,
  shell_exec,
  shell_open,
  shell_restart,
  shell_close,
  shell_list,
  todo_read,
  todo_write,
  search_code,
  get_symbol_info,
  find_references,
  resolve_symbol,
  get_imports_exports,
  build_dependency_graph,
  get_codebase_map,
  diagnostics,
  rename_symbol,
  detect_project_type,
  extract_conventions,
  get_project_overview,
  workspace_changes,
  checkpoint_create,
  checkpoint_list,
  checkpoint_restore,
  web_fetch,
  exec_command,
  write_stdin,
  terminal_resize,
  terminal_close,
  terminal_list,
  run_code,
  kernel_interrupt,
  kernel_restart,
  kernel_close,
  kernel_list,
  list_ports,
  expose_port,
];
