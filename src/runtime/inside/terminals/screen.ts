// A terminal's screen as text: @xterm/headless, the terminal emulator of VS Code without a renderer,
// parses every byte the program writes (cursor moves, clears, the alternate screen of full-screen
// programs), so the screen a person would see can be handed to a model as lines.
import { Terminal } from '@xterm/headless';

export interface RenderedScreen {
  readonly lines: string[];
  readonly cursor: { row: number; col: number };
}

export class Screen {
  private readonly terminal: Terminal;

  constructor(rows: number, cols: number) {
    // Scrollback is not shown (the screen is what is visible); a little keeps memory small.
    this.terminal = new Terminal({ rows, cols, scrollback: 100, allowProposedApi: true });
  }

  feed(bytes: Uint8Array): void {
    this.terminal.write(bytes);
  }

  resize(rows: number, cols: number): void {
    this.terminal.resize(cols, rows);
  }

  /** The visible rows once everything fed so far is parsed; trailing blank rows left out. */
  render(): Promise<RenderedScreen> {
    return new Promise((resolve) => {
      this.terminal.write('', () => {
        const buffer = this.terminal.buffer.active;
        const lines: string[] = [];
        for (let row = 0; row < this.terminal.rows; row++)
          lines.push(buffer.getLine(buffer.viewportY + row)?.translateToString(true) ?? '');
        while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
        resolve({ lines, cursor: { row: buffer.cursorY, col: buffer.cursorX } });
      });
    });
  }

  dispose(): void {
    this.terminal.dispose();
  }
}
