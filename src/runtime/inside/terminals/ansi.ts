// Escape sequences out of terminal output, for the plain-text output a model reads (the screen, for
// programs that draw, comes from the emulator instead): CSI, OSC, two-byte escapes, and the carriage
// returns of CRLF line ends.
const ESCAPES =
  // eslint-disable-next-line no-control-regex
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[@-Z\\-_]|\x1b[()][0-9A-Za-z]/g;

export function plainText(text: string): string {
  return text.replace(ESCAPES, '').replace(/\r+\n/g, '\n');
}
