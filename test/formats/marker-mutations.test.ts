/**
 * Counterexamples the every-line property found once its mutations also
 * deleted, duplicated and swapped marker lines: each one is pinned here as a
 * plain case, so a regression fails with a readable diff and no seed.
 */
import { describe, expect, it } from 'vitest';
import { parseFormat } from '../../src/formats/index.js';

const parse = (format: Parameters<typeof parseFormat>[1], lines: string[]) => parseFormat(lines.join('\n') + '\n', format);

describe('apply_patch: an end or begin marker out of place', () => {
  it('an "*** End Patch" followed by change lines came early: the operation it cut is refused with them', () => {
    // Found by the property: "*** End Patch" swapped with the last context line.
    const parsed = parse('apply-patch', ['*** Begin Patch', '*** Update File: a.txt', '@@', ' one', '-two', '+TWO', '*** End Patch', ' three']);
    expect(parsed.requests).toEqual([]);
    expect(parsed.errors).toHaveLength(1);
    expect(parsed.errors[0]?.path).toBe('a.txt');
    expect(parsed.errors[0]?.error.message).toMatch(/line 8/);
  });

  it('prose after "*** End Patch" is still prose, also a markdown bullet', () => {
    const parsed = parse('apply-patch', ['*** Begin Patch', '*** Update File: a.txt', '@@', ' one', '-two', '+TWO', '*** End Patch', '', 'Done.', '- renamed two']);
    expect(parsed.errors).toEqual([]);
    expect(parsed.requests).toHaveLength(1);
  });

  it('patch lines right above "*** Begin Patch" are refused, not skipped as prose', () => {
    // Found by the property: "*** Begin Patch" swapped below "*** Update File:" and a chunk line.
    const parsed = parse('apply-patch', ['Here is the patch:', '+v = 1', '*** Begin Patch', '*** Update File: a.txt', '@@', ' one', '+two', '*** End Patch']);
    expect(parsed.requests.map((r) => r.path)).toEqual(['a.txt']);
    expect(parsed.errors.map((e) => e.line)).toEqual([2]);
    const moved = parse('apply-patch', ['*** Update File: a.txt', '*** Begin Patch', '@@', ' one', '+two', '*** End Patch']);
    expect(moved.requests).toEqual([]);
    expect(moved.errors[0]?.line).toBe(1);
  });
});

describe('SEARCH/REPLACE: a line in a fence that belongs to no block', () => {
  it('a REPLACE marker that came early: the block is withdrawn and refused with the line after it', () => {
    // Found by the property: ">>>>>>> REPLACE" swapped with the last line of the new text.
    const parsed = parse('search-replace', ['f0.py', '```python', '<<<<<<< SEARCH', 'a = 1', '=======', '>>>>>>> REPLACE', 'b = 2', '```']);
    expect(parsed.requests).toEqual([]);
    expect(parsed.errors).toHaveLength(1);
    expect(parsed.errors[0]).toMatchObject({ line: 3, fromLine: 1, path: 'f0.py' });
  });

  it('a line between the fence and the path line of a fenced block is refused', () => {
    // Found by the property: the fence swapped above the path line, a code line inserted after it.
    const parsed = parse('search-replace', ['```python', 'v = 1', 'f0.py', '<<<<<<< SEARCH', 'a = 1', '=======', 'b = 2', '>>>>>>> REPLACE', '```']);
    expect(parsed.requests.map((r) => r.path)).toEqual(['f0.py']);
    expect(parsed.errors.map((e) => e.line)).toEqual([2]);
  });

  it('after a block with no divider, the fence of the next block still opens a fence (a line after its REPLACE is refused)', () => {
    // Found by the property (random seed): "```python" swapped below "<<<<<<< SEARCH" and a "=======" deleted; reading
    // resumed at the next SEARCH marker and skipped its fence, so the fences were counted the wrong way round.
    const parsed = parse('search-replace', ['f0.py', '<<<<<<< SEARCH', '```python', 'a = 1', '```', '>>>>>>> REPLACE', '', 'f1.py', '```python', '<<<<<<< SEARCH', 'b = 1', '=======', 'b = 2', '>>>>>>> REPLACE', 'c = 3', '```']);
    expect(parsed.requests).toEqual([]);
    expect(parsed.errors.map((e) => [e.line, e.path])).toEqual([
      [2, 'f0.py'],
      [10, 'f1.py'],
    ]);
  });

  it('after a block with no REPLACE, the fence it left open does not flip the next fence: a line after that REPLACE is refused', () => {
    // Found by the property (random seed): ">>>>>>> REPLACE" deleted in the first block, so its closing fence was read
    // as block text and the next block's opening fence was counted as a closing one.
    const parsed = parse('search-replace', ['f0.py', '```python', '<<<<<<< SEARCH', 'a = 1', '=======', 'a = 2', '```', '', 'f1.py', '```python', '<<<<<<< SEARCH', 'b = 1', '=======', '>>>>>>> REPLACE', 'c = 3', '```']);
    expect(parsed.requests).toEqual([]);
    expect(parsed.errors.map((e) => [e.line, e.path])).toEqual([
      [3, 'f0.py'],
      [11, 'f1.py'],
    ]);
  });

  it('a fence with no block in it (a shell command) and prose outside fences stay prose', () => {
    const parsed = parse('search-replace', ['Run:', '```bash', 'npm test', '```', 'f0.py', '```python', '<<<<<<< SEARCH', 'a = 1', '=======', 'b = 2', '>>>>>>> REPLACE', '```', 'That renames a.']);
    expect(parsed.errors).toEqual([]);
    expect(parsed.requests).toHaveLength(1);
  });
});
