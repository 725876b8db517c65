// The bash text of a persistent shell: the prologue it starts with, and the line that runs one command.
// The shell reads its script on stdin (fd 0, a pipe bash reads a byte at a time, so `read` can take the
// command text from the same stream); each command runs with `eval` at the top level, so `cd`, variables,
// `declare`, functions and aliases stay, and with stdin from /dev/null, so it cannot eat the script.
// After it, `__tg_done` writes the status and $PWD to fd 3 and a marker with a fresh nonce to stdout
// and stderr: the runtime knows a command is over, and all its output in, when it has seen all three.
import type { ResourceLimits } from '../../runner/types.js';

/** Separates the marker from the output around it (ASCII record separator; rare in real output). */
export const MARK = '\x1e';
export const markerOf = (nonce: string) => `${MARK}${nonce}${MARK}`;

/**
 * Job control (`set -m`) gives each command its own process group, so a timeout can interrupt the
 * command (SIGINT, then SIGKILL to its groups) and leave the shell. The shell traps SIGINT: bash without
 * a trap would kill itself when its foreground command dies of SIGINT. The trap then makes the rest of
 * the command line stop as a terminal's Ctrl-C does: with extdebug, a DEBUG trap that fails skips each
 * following simple command, returns from functions, and breaks loops; our own `__tg_*` steps pass.
 */
export function prologue(limits: ResourceLimits, processLimit: boolean): string {
  const ulimits = [
    `-t ${limits.cpuSeconds}`,
    `-v ${Math.floor(limits.memoryBytes / 1024)}`,
    `-f ${Math.floor(limits.fileSizeBytes / 1024)}`,
    `-n ${limits.openFiles}`,
    ...(processLimit ? [`-u ${limits.maxProcesses}`] : []),
  ].join(' ');
  const skip = `[[ \${FUNCNAME[0]-} == __tg_* || $BASH_COMMAND == __tg_* ]] || { [[ -n \${FUNCNAME[0]-} ]] && return 130; break 1000 2>/dev/null; false; }`;
  return [
    `ulimit ${ulimits} || exit 126`,
    'set -m 2>/dev/null',
    'shopt -s expand_aliases extdebug',
    '__tg_int=',
    '__tg_begin() { trap - DEBUG; __tg_int=; }',
    `__tg_done() { local s=$?; trap - DEBUG; [[ -n $__tg_int ]] && s=130; __tg_int=; printf '%s\\0%s\\0' "$s" "$PWD" >&3; printf '${MARK}%s${MARK}' "$1"; printf '${MARK}%s${MARK}' "$1" >&2; }`,
    `trap ${shellQuote(`__tg_int=1; trap ${shellQuote(skip)} DEBUG`)} INT`,
    `printf 'ready\\0%s\\0' "$PWD" >&3`,
    '',
  ].join('\n');
}

/** The script line that reads the next command (NUL-terminated, right after the line) and runs it. */
export const commandLine = (nonce: string, command: string) =>
  `__tg_begin; IFS= read -r -d '' __tg_c; eval "unset -v __tg_c; $__tg_c" </dev/null 3>&-; __tg_done ${nonce}\n${command}\0`;

/** A word bash reads back as `text`, whatever it holds. */
export const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
