// The newest checkpoint every write's event names (tools/call-events.ts) is found in one pass over the manifest
// folders' listings, without the sorted list of every id: the same answer as the full listing, whatever else lies there.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src/workspace/open.js';
import { tempRoot } from './fixtures/checkpoint-helpers.js';

const digits = (n: number) => fc.stringMatching(new RegExp(`^\\d{${n}}$`));
const id = fc.tuple(digits(8), digits(6), digits(3), fc.stringMatching(/^[0-9a-f]{4}$/)).map(([d, t, ms, x]) => `${d}-${t}-${ms}-${x}`);
// Names no id can have, some sorting after every id: temp files of a write, a stray file, an id with a wrong tail.
const junk = fc.constantFrom('.ew-tmp-20991231-235959-999-ffff.json.0a1b2c3d4e5f', 'zzz.json', '99999999-999999-999-FFFF.json', '99999999-999999-999-ffff.json.bak', 'notes.txt', '99999999-999999-9999-ffff.json');

describe('the newest checkpoint', () => {
  it('property: is the last of every id of both scopes, junk names ignored', () => {
    const root = tempRoot('ew-newest-');
    const { ws } = openWorkspace(root);
    const manifests = ws.transactions.checkpoints.manifests;
    const folders = ['files', 'workspace'].map((s) => path.join(root, '.editwarden', 'checkpoints', 'manifests', s));
    expect(manifests.newest()).toBeNull();
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.boolean(),
            fc.oneof(
              id.map((i) => `${i}.json`),
              junk,
            ),
          ),
          { maxLength: 12 },
        ),
        (names) => {
          for (const f of folders) fs.rmSync(f, { recursive: true, force: true });
          for (const [inWorkspace, name] of names) {
            const folder = folders[inWorkspace ? 1 : 0] as string;
            fs.mkdirSync(folder, { recursive: true });
            fs.writeFileSync(path.join(folder, name), '{}');
          }
          expect(manifests.newest()).toBe(manifests.ids().at(-1)?.id ?? null);
        },
      ),
      { numRuns: 150 },
    );
  });
});
