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

  /** Renders still waiting for the parser: answered (blank) by dispose, which drops their callbacks. */
  private readonly waiting = new Set<(screen: RenderedScreen) => void>();

  /** The visible rows once everything fed so far is parsed; trailing blank rows left out. */
  render(): Promise<RenderedScreen> {
    return new Promise((resolve) => {
      this.waiting.add(resolve);
      this.terminal.write('', () => {
        if (!this.waiting.delete(resolve)) return;
        const buffer = this.terminal.buffer.active;
        const lines: string[] = [];
        for (let row = 0; row < this.terminal.rows; row++)
          lines.push(buffer.getLine(buffer.viewportY + row)?.translateToString(true) ?? '');
        while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
        resolve({ lines, cursor: { row: buffer.cursorY, col: buffer.cursorX } });
      });
    });
  }

  /** Ends the emulator; a list or read rendering meanwhile (the terminal closed under it) gets no rows. */
  dispose(): void {
    for (const resolve of this.waiting) resolve({ lines: [], cursor: { row: 0, col: 0 } });
    this.waiting.clear();
    this.terminal.dispose();
  }
}
