import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { progressPrinter } from '../../../cli/progress.js';

/** A terminal stand-in that records what was written. */
function fakeTerminal(isTTY = true): NodeJS.WriteStream & { text: () => string } {
  const chunks: string[] = [];
  return {
    isTTY,
    write: (s: string) => {
      chunks.push(s);
      return true;
    },
    text: () => chunks.join(''),
  } as unknown as NodeJS.WriteStream & { text: () => string };
}

/** The line the terminal shows now: what follows the last carriage return. */
const shownLine = (text: string): string => (text.split('\r').at(-1) ?? '').replace(/\x1b\[2K/g, '');

describe('progress printer', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("shows time moving within a long step that reports nothing: the line is redrawn every second with the step's elapsed time", () => {
    const terminal = fakeTerminal();
    const progress = progressPrinter(terminal, Date.now);
    progress.update({ step: 'seeding demo data: creators', done: 1, total: 7, unit: 'steps' });
    vi.advanceTimersByTime(3_000);
    progress.update({ step: 'seeding demo data: follower history', done: 2, total: 7, unit: 'steps' });
    vi.advanceTimersByTime(12_000);
    expect(shownLine(terminal.text())).toBe(
      ' 28% seeding demo data: follower history 2/7 steps  12s in this step, 15.0s in all',
    );
    progress.end();
  });

  it('stops redrawing when the last step is reported and after end', () => {
    const terminal = fakeTerminal();
    const progress = progressPrinter(terminal, Date.now);
    progress.update({ step: 'done', done: 7, total: 7, unit: 'steps' });
    const written = terminal.text();
    vi.advanceTimersByTime(5_000);
    expect(terminal.text()).toBe(written);
    progress.end();
    expect(terminal.text()).toBe(`${written}\n`);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('interrupt finishes the progress line, so another line (a log line) starts on its own; the next redraw starts below it', () => {
    const terminal = fakeTerminal();
    const progress = progressPrinter(terminal, Date.now);
    progress.update({ step: 'posts', done: 3, total: 7, unit: 'steps' });
    progress.interrupt();
    terminal.write('a log line\n');
    progress.interrupt();
    vi.advanceTimersByTime(1_000);
    progress.end();
    const lines = terminal.text().split('\n');
    expect(lines[1]).toBe('a log line');
    expect(shownLine(lines[2] ?? '')).toMatch(/^ 42% posts 3\/7 steps/);
    expect(lines.at(-1)).toBe('');
  });

  it('writes nothing when stderr is not a terminal', () => {
    const pipe = fakeTerminal(false);
    const progress = progressPrinter(pipe, Date.now);
    progress.update({ step: 'posts', done: 3, total: 7, unit: 'steps' });
    vi.advanceTimersByTime(3_000);
    progress.interrupt();
    progress.end();
    expect(pipe.text()).toBe('');
  });
});
