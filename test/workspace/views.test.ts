/**
 * FileView: the disk workspace and the one overlay class. Pins that an
 * overlay never touches the disk (not even editwarden's state folder), that
 * it implements every FileView method itself (so a method added to the
 * workspace later cannot fall through to the disk), that a transaction of
 * one view never carries a write into another, and that a write outside a
 * transaction does not type-check.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyRequests } from '../../src/apply/pipeline.js';
import { openReadOnly, openWorkspace } from '../../src/workspace/open.js';
import { OverlayView } from '../../src/workspace/overlay.js';
import { FILE_VIEW_METHODS, type FileView } from '../../src/workspace/view.js';
import { Workspace, type FileWrite } from '../../src/workspace/workspace.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-views-')));
  made.push(root);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

/** Every entry under the root, state folder included: path, type, mode, bytes and mtime. */
function snapshot(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      const st = fs.lstatSync(full);
      if (entry.isDirectory()) {
        out.push(`${childRel}/ ${st.mode}`);
        walk(full, childRel);
      } else out.push(`${childRel} ${st.mode} ${st.mtimeMs} ${fs.readFileSync(full).toString('base64')}`);
    }
  };
  walk(root, '');
  return out;
}

const writes: FileWrite[] = [
  { kind: 'write', path: 'a.txt', bytes: Buffer.from('A\n') },
  { kind: 'write', path: 'new/b.txt', bytes: Buffer.from('B\n') },
  { kind: 'delete', path: 'c.txt' },
];

describe('the overlay view', () => {
  it('never touches the disk: writes, deletes and applied requests stay in memory, the state folder included', async () => {
    const root = project({ 'a.txt': 'a\n', 'c.txt': 'c\n', 'src/x.ts': 'export const x = 1;\n' });
    const { ws } = openWorkspace(root);
    const before = snapshot(root);
    const overlay = new OverlayView(ws);
    overlay.transact((tx) => overlay.commit(tx, writes));
    const outcome = await applyRequests(overlay, [{ path: 'src/x.ts', action: 'edit', oldText: 'x = 1', newText: 'x = 2' }]);
    expect(outcome.ok).toBe(true);
    // An overlay of an overlay (the planning view of a dry run) keeps its writes in its own memory too.
    const plan = new OverlayView(overlay);
    plan.transact((tx) => plan.commit(tx, [{ kind: 'write', path: 'plan.txt', bytes: Buffer.from('p\n') }]));
    expect(overlay.read('src/x.ts')?.bytes.toString()).toBe('export const x = 2;\n');
    expect(overlay.read('a.txt')?.bytes.toString()).toBe('A\n');
    expect(overlay.exists('c.txt')).toBe(false);
    expect(overlay.info('new/b.txt').type).toBe('file');
    expect(overlay.info('c.txt').type).toBe('absent');
    expect(plan.read('plan.txt')?.bytes.toString()).toBe('p\n');
    expect(overlay.exists('plan.txt')).toBe(false);
    expect(snapshot(root)).toEqual(before);
  });

  it('implements every FileView method itself, and the workspace has no method the test has not classified', () => {
    // A method added to Workspace must be sorted here: a FileView method (then OverlayView must implement it,
    // below) or a disk-only one that no view is handed. Nothing reaches an overlay by inheritance.
    const diskOnly = ['constructor', 'stateDir', 'locate', 'targetOf'];
    const workspaceMethods = Object.getOwnPropertyNames(Workspace.prototype).sort();
    expect(workspaceMethods).toEqual([...diskOnly, ...FILE_VIEW_METHODS].sort());
    for (const name of FILE_VIEW_METHODS) {
      expect(Object.hasOwn(OverlayView.prototype, name), `OverlayView implements ${name}`).toBe(true);
    }
    expect(Object.getPrototypeOf(OverlayView.prototype)).toBe(Object.prototype);
    const root = project({});
    const overlay = new OverlayView(openWorkspace(root).ws);
    expect(overlay).not.toBeInstanceOf(Workspace);
    // Compile-time: FILE_VIEW_METHODS names every method of the FileView interface.
    type FileViewMethod = { [K in keyof FileView]: FileView[K] extends (...args: never[]) => unknown ? K : never }[keyof FileView];
    const complete: [Exclude<FileViewMethod, (typeof FILE_VIEW_METHODS)[number]>] extends [never] ? true : never = true;
    expect(complete).toBe(true);
  });

  it('no view is built by prototype surgery, and only the transaction layer imports the raw writer', () => {
    const src = path.join(import.meta.dirname, '..', '..', 'src');
    const surgery: string[] = [];
    const rawWriter: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith('.ts')) {
          const text = fs.readFileSync(full, 'utf8');
          if (text.includes('Object.create(')) surgery.push(path.relative(src, full));
          if (/from '[./]*(workspace\/)?disk-writer\.js'/.test(text)) rawWriter.push(path.relative(src, full));
        }
      }
    };
    walk(src);
    expect(surgery).toEqual([]);
    expect(rawWriter).toEqual([path.join('workspace', 'transaction.ts')]);
  });
});

describe('transactions belong to one view', () => {
  it('an overlay refuses a disk transaction, the disk refuses an overlay one and an ended one; nothing is written', () => {
    const root = project({ 'a.txt': 'a\n', 'c.txt': 'c\n' });
    const { ws } = openWorkspace(root);
    const overlay = new OverlayView(ws);
    const before = snapshot(root);
    ws.transact((diskTx) => expect(() => overlay.commit(diskTx, writes)).toThrow(expect.objectContaining({ code: 'E_INTERNAL' })));
    overlay.transact((overlayTx) => expect(() => ws.commit(overlayTx, writes)).toThrow(expect.objectContaining({ code: 'E_INTERNAL' })));
    const other = new OverlayView(ws);
    other.transact((otherTx) => expect(() => overlay.commit(otherTx, writes)).toThrow(expect.objectContaining({ code: 'E_INTERNAL' })));
    expect(overlay.changes()).toEqual([]);
    const tx = ws.transactions.begin({ name: 'ended' });
    tx.commit();
    expect(() => ws.commit(tx, writes)).toThrow(expect.objectContaining({ code: 'E_INTERNAL' }));
    expect(snapshot(root).filter((e) => !e.startsWith('.editwarden'))).toEqual(before.filter((e) => !e.startsWith('.editwarden')));
  });

  it('a disk commit is a checkpointed transaction: the checkpoint holds the bytes before it', () => {
    const root = project({ 'a.txt': 'a\n', 'c.txt': 'c\n' });
    const { ws, transactions } = openWorkspace(root);
    ws.transact((tx) => ws.commit(tx, writes));
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('A\n');
    const id = transactions.lastCheckpoint;
    expect(id).not.toBeNull();
    transactions.checkpoints.restore(id ?? '');
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
    expect(fs.readFileSync(path.join(root, 'c.txt'), 'utf8')).toBe('c\n');
  });

  it('an open Transaction carries writes: they join it, and its rollback puts them back', () => {
    const root = project({ 'a.txt': 'a\n', 'c.txt': 'c\n' });
    const { ws } = openWorkspace(root);
    const tx = ws.transactions.begin({ name: 'multi' });
    ws.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: Buffer.from('1\n') }]);
    ws.transact((section) => ws.commit(section, [{ kind: 'write', path: 'a.txt', bytes: Buffer.from('2\n') }]));
    expect(tx.written).toEqual(['a.txt']);
    tx.rollback();
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
  });
});

/** Never called: the type-checker (`tsc -b tsconfig.test.json`, against the emitted declarations) runs it. */
function writesOutsideATransactionDoNotTypeCheck(root: string, batch: FileWrite[]): void {
  const opened = openWorkspace(root);
  // @ts-expect-error a commit names the transaction it joins
  opened.ws.commit(batch);
  // @ts-expect-error the workspace has no raw write
  opened.ws.writeAll(batch);
  // @ts-expect-error the transaction layer's raw writer is private to it and its transactions
  opened.transactions.ws.writeAll(batch);
  // @ts-expect-error nor is it reachable under another name
  opened.transactions.access.ws.writeAll(batch);
  // @ts-expect-error a read-only view has no commit
  openReadOnly(root).commit(undefined, batch);
  const overlay = new OverlayView(opened.ws);
  // @ts-expect-error nor does an overlay take a write without its transaction
  overlay.commit(batch);
}

it('the type-level checks above are compiled with the suite', () => {
  expect(typeof writesOutsideATransactionDoNotTypeCheck).toBe('function');
});
