/**
 * opencode's `bash` takes a `workdir`: the hook lets the command run there
 * only when the folder lies inside the root — by its text, and through links
 * — and otherwise refuses it with E_OUTSIDE_ROOT before anything runs. A
 * property over workdirs built of `.`, `..`, names (the root's own name
 * among them, so a path may leave and come back), absolute or relative,
 * against a model that walks the segments itself.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHook } from '../../src/integrations/hook.js';
import { opencode } from '../../src/integrations/opencode.js';
import { cleanup, tempDir } from './helpers.js';

let root: string;
let outside: string;

beforeAll(() => {
  root = tempDir('ew-workdir-');
  outside = tempDir('ew-workdir-out-');
  fs.mkdirSync(path.join(root, 'sub'));
  fs.symlinkSync(outside, path.join(root, 'out'));
  fs.symlinkSync('sub', path.join(root, 'in'));
});
afterAll(cleanup);

async function decide(workdir: string): Promise<{ decision: string; reason?: string }> {
  const input = { session_id: 's', tool_use_id: 'c', tool_name: 'bash', tool_input: { command: 'true', workdir }, cwd: root };
  const out = await runHook(opencode, 'tool-before', JSON.stringify(input), { root, env: {}, cwd: root, self: ['editwarden'] });
  return JSON.parse(out.stdout ?? '') as { decision: string; reason?: string };
}

/** The model: the folder the segments reach from `start` (absolute, '/'-separated), walked one segment at a time. */
function walk(start: string[], segments: string[]): string[] {
  const at = [...start];
  for (const s of segments) {
    if (s === '..') at.pop();
    else if (s !== '.' && s !== '') at.push(s);
  }
  return at;
}

describe("opencode's bash workdir", () => {
  it('property: refused with E_OUTSIDE_ROOT exactly when the folder the segments reach is not the root or under it (relative or absolute)', async () => {
    const rootParts = root.split('/').filter(Boolean);
    const name = rootParts[rootParts.length - 1] as string;
    const segment = fc.constantFrom('.', '..', 'a', 'sub', name);
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 6 }), fc.boolean(), async (segments, absolute) => {
        const workdir = absolute ? `/${[...rootParts, ...segments].join('/')}` : segments.join('/');
        const reached = walk(rootParts, segments);
        const inside = reached.length >= rootParts.length && rootParts.every((p, i) => reached[i] === p);
        const answer = await decide(workdir);
        if (inside) expect(answer.decision, workdir).toBe('rewrite');
        else {
          expect(answer.decision, workdir).toBe('deny');
          expect(answer.reason).toContain('E_OUTSIDE_ROOT');
        }
      }),
      { numRuns: 60 },
    );
  });

  it('a link inside the root to a folder outside is outside; a link to a folder inside is inside', async () => {
    expect((await decide('out')).reason).toContain('E_OUTSIDE_ROOT');
    expect((await decide(path.join(root, 'out'))).reason).toContain('E_OUTSIDE_ROOT');
    expect((await decide('in')).decision).toBe('rewrite');
    expect((await decide(outside)).reason).toContain('E_OUTSIDE_ROOT');
  });
});
