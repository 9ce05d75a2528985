import { describe, expect, it } from 'vitest';
import { pageOf, type ReadData } from '../../src/mcp/paging.js';

function read(lines: string[], start = 1, total = lines.length): { output: string; data: ReadData } {
  const end = start + lines.length - 1;
  const width = String(end).length;
  const body = lines.map((l, i) => `${String(start + i).padStart(width, ' ')}\t${l}`).join('\n');
  const data: ReadData = { path: 'f.txt', hash: 'h', total_lines: total, start_line: start, end_line: end, truncated: end < total, content: lines.join('\n') };
  return { output: `f.txt (lines ${start}-${end} of ${total}; sha256 h)\n${body}`, data };
}

describe('read_file pages', () => {
  it("keeps the runner's text when it fits, with next_offset when more lines follow", () => {
    const { output, data } = read(['a', 'b'], 1, 10);
    const page = pageOf(output, data, true, 1000);
    expect(page.text).toBe(output);
    expect(page.structured).toMatchObject({ start_line: 1, end_line: 2, truncated: true, next_offset: 3 });
  });

  it('cuts a page that exceeds the budget at a whole line and points at the next one', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i + 1} ${'x'.repeat(50)}`);
    const { output, data } = read(lines);
    const page = pageOf(output, data, true, 1000);
    expect(page.text.length).toBeLessThanOrEqual(1000 + 300);
    const shown = page.structured.end_line;
    expect(shown).toBeGreaterThan(5);
    expect(shown).toBeLessThan(100);
    expect(page.structured.next_offset).toBe(shown + 1);
    expect(page.text).toContain(`line ${shown} `);
    expect(page.text).not.toContain(`line ${shown + 1} `);
    expect(page.text).toContain(`offset: ${shown + 1}`);
  });

  it('shows the start of a line longer than a whole page, says so, and moves on past it', () => {
    const { output, data } = read(['y'.repeat(5000), 'next'], 7, 8);
    const page = pageOf(output, data, false, 1000);
    expect(page.structured).toMatchObject({ start_line: 7, end_line: 7, cut_line: 7, next_offset: 8 });
    expect(page.text).toContain('4000 more characters not shown');
    expect(page.text.length).toBeLessThan(1300);
  });

  it('a cut last page does not claim more lines', () => {
    const lines = Array.from({ length: 3 }, () => 'z'.repeat(400));
    const { output, data } = read(lines, 8, 10);
    const page = pageOf(output, data, false, 900);
    expect(page.structured).toMatchObject({ end_line: 9, next_offset: 10, truncated: true });
  });
});
