import { openWorkspace } from '../../src/workspace/open.js';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ContextRecorder } from '../../src/agent/editor/context.js';
import { OverlayView } from '../../src/workspace/overlay.js';
import { applyProposal, readProposalHeader, renderProposal } from '../../src/agent/editor/proposal.js';
import { hashTree } from '../../src/agent/hash-tree.js';
import { cleanup, makeProject } from '../agent/editor/helpers.js';

afterEach(cleanup);

describe('the dry-run overlay', () => {
  it('reads see proposed writes and deletions; the disk keeps its bytes', () => {
    const root = makeProject({ 'a.txt': 'one\n', 'b.txt': 'two\n' });
    const overlay = new OverlayView(openWorkspace(root).ws);
    overlay.transact((tx) =>
      overlay.commit(tx, [
        { kind: 'write', path: 'a.txt', bytes: Buffer.from('ONE\n') },
        { kind: 'write', path: 'new/c.txt', bytes: Buffer.from('three\n') },
        { kind: 'delete', path: 'b.txt' },
      ]),
    );
    const ws = overlay;
    expect(ws.read('a.txt')?.bytes.toString()).toBe('ONE\n');
    expect(ws.read('new/c.txt')?.bytes.toString()).toBe('three\n');
    expect(ws.read('b.txt')).toBeNull();
    expect(ws.exists('b.txt')).toBe(false);
    expect(ws.resolve('new/c.txt').exists).toBe(true);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\n');
    expect(fs.existsSync(path.join(root, 'new'))).toBe(false);
    expect(overlay.changes()).toEqual([
      { path: 'a.txt', kind: 'modified' },
      { path: 'b.txt', kind: 'deleted' },
      { path: 'new/c.txt', kind: 'created' },
    ]);
  });

  it('a write given in pieces is joined only when read: a planning view that is never read back copies no file', () => {
    const root = makeProject({ 'a.txt': 'one\n' });
    const overlay = new OverlayView(openWorkspace(root).ws);
    const concat = vi.spyOn(Buffer, 'concat');
    try {
      overlay.transact((tx) => overlay.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: [Buffer.from('o'), Buffer.from('NE'), Buffer.from('\n')] }]));
      expect(concat).not.toHaveBeenCalled();
      expect(overlay.written()).toHaveLength(1);
      expect(overlay.read('a.txt')?.bytes.toString()).toBe('oNE\n');
      expect(overlay.read('a.txt')?.bytes.toString()).toBe('oNE\n');
      expect(overlay.proposed('a.txt')).toBe('oNE\n');
      expect(concat).toHaveBeenCalledTimes(1);
    } finally {
      concat.mockRestore();
    }
    expect(overlay.changes()).toEqual([{ path: 'a.txt', kind: 'modified' }]);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\n');
  });

  it('a batch naming .editwarden/ or a path outside the root is refused whole, like on disk', () => {
    const root = makeProject({ 'a.txt': 'one\n' });
    const overlay = new OverlayView(openWorkspace(root).ws);
    expect(() =>
      overlay.transact((tx) =>
        overlay.commit(tx, [
          { kind: 'write', path: 'a.txt', bytes: Buffer.from('x\n') },
          { kind: 'write', path: '.editwarden/runs/x', bytes: Buffer.from('x') },
        ]),
      ),
    ).toThrow(expect.objectContaining({ code: 'E_DENIED_PATH' }));
    expect(() => overlay.transact((tx) => overlay.commit(tx, [{ kind: 'write', path: '../x', bytes: Buffer.from('x') }]))).toThrow(expect.objectContaining({ code: 'E_OUTSIDE_ROOT' }));
    expect(overlay.changes()).toEqual([]);
    overlay.transact((tx) => overlay.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: Buffer.from('two\n') }]));
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\n');
  });

  it('property: the proposal diff, applied to the untouched tree, gives exactly the overlay content', async () => {
    const line = fc.stringMatching(/^[a-z ]{0,12}$/);
    const text = fc.array(line, { minLength: 0, maxLength: 8 }).map((ls) => (ls.length === 0 ? '' : `${ls.join('\n')}\n`));
    const names = ['a.txt', 'b.txt', 'dir/c.txt', 'dir/d.txt'];
    await fc.assert(
      fc.asyncProperty(fc.record({ a: text, b: text }), fc.array(fc.record({ file: fc.constantFrom(...names), content: fc.option(text, { nil: null }) }), { minLength: 1, maxLength: 6 }), async (initial, ops) => {
        const root = makeProject({ 'a.txt': initial.a, 'b.txt': initial.b });
        const overlay = new OverlayView(openWorkspace(root).ws);
        for (const op of ops) overlay.transact((tx) => overlay.commit(tx, [op.content === null ? { kind: 'delete', path: op.file } : { kind: 'write', path: op.file, bytes: Buffer.from(op.content) }]));
        const expected: Record<string, string | null> = {};
        for (const n of names) expected[n] = overlay.read(n)?.bytes.toString('utf8') ?? null;
        const before = hashTree(root);
        const diff = overlay.diff();
        expect(hashTree(root)).toEqual(before);
        const proposal = renderProposal('task\nline two', '20260101T000000Z-abcdef', diff);
        expect(readProposalHeader(proposal)).toEqual({ task: 'task\nline two', runId: '20260101T000000Z-abcdef' });
        if (diff !== '') {
          const outcome = await applyProposal(openWorkspace(root).ws, proposal);
          expect(outcome.ok).toBe(true);
        }
        for (const n of names) {
          const file = path.join(root, n);
          expect(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null).toBe(expected[n]);
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe('context recording', () => {
  it('numbers snapshots after those already in agent/, appends scout payloads raw to the current one', () => {
    const root = makeProject({ 'agent/context_003.md': 'old\n', 'agent/notes.md': 'n\n' });
    const recorder = new ContextRecorder({ kind: 'project', ws: openWorkspace(root).ws }, () => new Date('2026-01-01T00:00:00Z'));
    const first = recorder.snapshot({ reason: 'start', runId: 'r1', scope: 'Task: x', strategy: 1, body: '## Strategy\n\nStrategy 1.' });
    expect(first).toBe('agent/context_004.md');
    recorder.record({ scout: 'codebase', request: 'query "x"', payload: { scout: 'codebase', relevant: [{ path: 'a.ts' }] } });
    const text = fs.readFileSync(path.join(root, first), 'utf8');
    expect(text).toContain('# Editor context 004 — start (strategy 1)');
    expect(text).toContain('### Scout A (codebase) — query "x"');
    expect(text).toContain('"path": "a.ts"');
    const second = recorder.snapshot({ reason: 'replan', runId: 'r1', scope: 'Task: x', strategy: 2, body: '' });
    expect(second).toBe('agent/context_005.md');
    expect(fs.readFileSync(path.join(root, second), 'utf8')).toContain('REPLAN (strategy 2)');
    // The earlier snapshot is left as it was.
    expect(fs.readFileSync(path.join(root, first), 'utf8')).toBe(text);
    expect(fs.readFileSync(path.join(root, 'agent/context_003.md'), 'utf8')).toBe('old\n');
    expect(recorder.written).toEqual([first, second]);
  });
});
