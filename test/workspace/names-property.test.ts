/**
 * Every name that can exist in the root round-trips through capture and
 * restore (property): backslashes, names up to 255 bytes (NAME_MAX), Unicode,
 * leading dashes, spaces. A failure here used to make a rollback fail before
 * restoring anything and block every later command.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src/workspace/open.js';

const piece = fc.constantFrom('a', 'Z', '\\', 'é', '日本', '😀', '-', ' ', '.', '_', '#', "'", '"', '$', '*', '?');

/** A legal POSIX file name: no "/", no NUL, not "." or "..", at most 255 bytes; sometimes padded to 200–255 bytes. */
const fileName = fc
  .tuple(fc.array(piece, { minLength: 1, maxLength: 12 }), fc.option(fc.integer({ min: 200, max: 255 }), { nil: undefined }), fc.boolean())
  .map(([parts, longTo, dash]) => {
    let name = (dash ? '-' : '') + parts.join('');
    if (longTo !== undefined) name += 'n'.repeat(Math.max(0, longTo - Buffer.byteLength(name)));
    while (Buffer.byteLength(name) > 255) name = name.slice(0, -1);
    return name;
  })
  .filter((n) => n !== '.' && n !== '..' && !n.startsWith('.ew-tmp-') && n !== '.git' && n !== '.editwarden' && n.toLowerCase() !== '.editwarden.yml' && n !== '.gitignore' && Buffer.byteLength(n) > 0);

/**
 * Names an agent may not ask for at the top of the root: a Windows drive or UNC spelling (`C:\\x`, `\\\\server`) is
 * refused as a request (workspace/paths.ts), though such a file can exist on disk and must still round-trip.
 */
const agentMayName = (name: string): boolean => !/^(\\\\|[a-zA-Z]:[\\/])/.test(name);

function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string): void => {
    for (const d of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (r === '.editwarden') continue;
      if (d.isDirectory()) {
        out[`${r}/`] = 'dir';
        walk(r);
      } else out[r] = fs.readFileSync(path.join(root, r), 'utf8');
    }
  };
  walk('');
  return out;
}

describe('names round-trip through capture and restore (property)', () => {
  it('workspace checkpoints and transaction rollbacks put back every name exactly', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fileName, { minLength: 1, maxLength: 5 }), fileName, (names, extra) => {
        const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-names-')));
        try {
          fs.mkdirSync(path.join(root, 'd'));
          names.forEach((n, i) => {
            fs.writeFileSync(path.join(root, n), `top ${i}\n`);
            fs.writeFileSync(path.join(root, 'd', n), `deep ${i}\n`);
          });
          const before = snapshot(root);
          const { ws, transactions } = openWorkspace(root);
          const cps = transactions.checkpoints;
          const id = cps.create('names', '');
          // Change every file through the workspace (transactions of their own), delete some, create another.
          names.forEach((n, i) => {
            ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: `d/${n}`, bytes: Buffer.from(`changed ${i}\n`) }]));
            if (i % 2 === 0 && agentMayName(n)) ws.transact((tx) => ws.commit(tx, [{ kind: 'delete', path: n }]));
          });
          if (!names.includes(extra)) ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: `d/new/${extra}`, bytes: Buffer.from('new\n') }]));
          cps.restore(id);
          expect(snapshot(root)).toEqual(before);
          // A rolled-back transaction over the same names.
          const tx = transactions.begin({ name: 'names' });
          for (const n of names.filter(agentMayName)) ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: n, bytes: Buffer.from('tx\n') }]));
          tx.rollback();
          expect(snapshot(root)).toEqual(before);
          // Nothing blocks the next command.
          expect(cps.journal.unfinished()).toEqual([]);
        } finally {
          fs.rmSync(root, { recursive: true, force: true });
        }
      }),
      { numRuns: 20 },
    );
  }, 60_000);
});
