/**
 * The pure parts: how checkpoints group into undoable changes (property
 * test), how a client's tool input becomes edit requests, and which paths
 * are the settings that govern the agent.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claudeNativeEdit } from '../../src/integrations/claude.js';
import { codexNativeEdit } from '../../src/integrations/codex.js';
import { geminiNativeEdit } from '../../src/integrations/gemini.js';
import { NativeInputError } from '../../src/integrations/native-edit.js';
import { guardedHookCommand } from '../../src/integrations/client.js';
import { memberCovering, PROTECTED_MEMBERS } from '../../src/config/protected-set.js';

const isProtectedConfig = (p: string): boolean => memberCovering(p, PROTECTED_MEMBERS) !== null;
import { changesOf } from '../../src/workspace/checkpoints/changes.js';
import type { CheckpointOrigin, CheckpointSummary } from '../../src/workspace/checkpoints/types.js';

const origin: fc.Arbitrary<CheckpointOrigin> = fc.oneof(
  fc.constant<CheckpointOrigin>({ kind: 'manual' }),
  fc.constantFrom('tx-a', 'tx-b', 'tx-c').map<CheckpointOrigin>((tx) => ({ kind: 'transaction', tx })),
  fc.constant<CheckpointOrigin>({ kind: 'hook', client: 'claude', tool: 'Edit' }),
  fc.constant<CheckpointOrigin>({ kind: 'safety', before: '20260101-000000-000-0000' }),
);

function summaries(origins: CheckpointOrigin[]): CheckpointSummary[] {
  return origins.map((o, i) => ({
    id: `20260101-000000-${String(i).padStart(3, '0')}-abcd`,
    name: 'n',
    reason: '',
    scope: 'files',
    origin: o,
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i)).toISOString(),
    files: 1,
    bytes: 1,
    uniqueBytes: 1,
  }));
}

describe('changes of a checkpoint history', () => {
  it('every transaction, hook and foreign safety checkpoint is in exactly one change; manual and own safety checkpoints in none', () => {
    fc.assert(
      fc.property(fc.array(origin, { maxLength: 30 }), fc.array(fc.nat(29)), (origins, ownIdx) => {
        const all = summaries(origins);
        const own = new Set(ownIdx.filter((i) => i < all.length && all[i]?.origin.kind === 'safety').map((i) => (all[i] as CheckpointSummary).id));
        const changes = changesOf(all, own);
        const counted = changes.flatMap((c) => c.checkpoints);
        expect(new Set(counted).size).toBe(counted.length);
        for (const s of all) {
          const expected = s.origin.kind === 'transaction' || s.origin.kind === 'hook' || (s.origin.kind === 'safety' && !own.has(s.id));
          expect(counted.includes(s.id)).toBe(expected);
        }
        // One change per transaction id; changes ordered by their first checkpoint.
        const txKeys = changes.filter((c) => c.kind === 'transaction').map((c) => c.key);
        expect(new Set(txKeys).size).toBe(txKeys.length);
        const firsts = changes.map((c) => c.checkpoints[0] as string);
        expect(firsts).toEqual([...firsts].sort());
      }),
    );
  });
});

describe('client tool input → edit requests', () => {
  it('maps Claude Code Edit, Write, MultiEdit and NotebookEdit', () => {
    expect(claudeNativeEdit({ tool_name: 'Edit', tool_use_id: 't', tool_input: { file_path: '/r/a', old_string: 'x', new_string: 'y', replace_all: true } })).toMatchObject({
      call: 't',
      requests: [{ action: 'edit', path: '/r/a', oldText: 'x', newText: 'y', replaceAll: true }],
    });
    expect(claudeNativeEdit({ tool_name: 'Edit', tool_input: { file_path: '/r/a', old_string: '', new_string: 'new' } })?.requests[0]).toMatchObject({ action: 'create', content: 'new' });
    expect(claudeNativeEdit({ tool_name: 'Write', tool_input: { file_path: '/r/a', content: 'c' } })?.requests[0]).toMatchObject({ action: 'overwrite', content: 'c' });
    expect(
      claudeNativeEdit({
        tool_name: 'MultiEdit',
        tool_input: {
          file_path: '/r/a',
          edits: [
            { old_string: 'a', new_string: 'b' },
            { old_string: 'c', new_string: 'd' },
          ],
        },
      })?.requests,
    ).toHaveLength(2);
    expect(claudeNativeEdit({ tool_name: 'NotebookEdit', tool_input: { notebook_path: '/r/n.ipynb', new_source: '' } })).toMatchObject({ requests: [], pathsOnly: ['/r/n.ipynb'] });
    expect(claudeNativeEdit({ tool_name: 'Read', tool_input: { file_path: '/r/a' } })).toBeNull();
    expect(() => claudeNativeEdit({ tool_name: 'MultiEdit', tool_input: { file_path: '/r/a' } })).toThrow(NativeInputError);
  });

  it('maps Codex apply_patch (patch text in tool_input.command) and Gemini CLI write_file / replace', () => {
    const patch = '*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+uno\n*** End Patch\n';
    expect(codexNativeEdit({ tool_name: 'apply_patch', tool_input: { command: patch } })?.requests[0]).toMatchObject({ action: 'patch', path: 'a.txt' });
    expect(codexNativeEdit({ tool_name: 'shell', tool_input: { command: ['ls'] } })).toBeNull();
    expect(geminiNativeEdit({ tool_name: 'replace', tool_input: { file_path: '/r/a', old_string: 'x', new_string: 'y', expected_replacements: 2 } })?.requests[0]).toMatchObject({ action: 'edit', replaceAll: true });
    expect(geminiNativeEdit({ tool_name: 'write_file', tool_input: { file_path: '/r/a', content: 'c' } })?.requests[0]).toMatchObject({ action: 'overwrite' });
  });
});

describe('the settings that govern the agent', () => {
  it('are protected whatever the letter case', () => {
    for (const p of ['.editwarden.yml', '.claude/settings.json', '.CLAUDE/Settings.json', '.mcp.json', '.codex/config.toml', '.gemini/settings.json', '.cursor/hooks.json']) expect(isProtectedConfig(p)).toBe(true);
    for (const p of ['src/.editwarden.yml.bak', 'claude/settings.json', 'README.md']) expect(isProtectedConfig(p)).toBe(false);
  });

  it('the hook command init writes passes the answer through and blocks (exit 2) on every failure to run the guard', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-wrap-'));
    try {
      // A global install: outside the project folder (one inside it is never run directly: guard-install.test.ts).
      const fake = path.join(dir, 'editwarden');
      const projectDir = path.join(dir, 'project');
      fs.mkdirSync(projectDir);
      const line = guardedHookCommand('gemini', 'before-tool', '${GEMINI_PROJECT_DIR:-.}');
      const run = (pathVar: string) => spawnSync('/bin/sh', ['-c', line], { encoding: 'utf8', env: { PATH: pathVar, HOME: dir }, cwd: projectDir });
      const cases: Array<[string, number, string]> = [
        ['echo "{\\"ok\\":1}"; exit 0', 0, ''],
        ['echo refused >&2; exit 2', 2, 'refused'],
        ['echo boom >&2; exit 1', 2, 'E_GUARD_UNAVAILABLE'],
        ['exit 137', 2, 'the editwarden hook failed (exit 137)'],
      ];
      for (const [body, code, stderr] of cases) {
        fs.writeFileSync(fake, `#!/bin/sh\ncat >/dev/null\n${body}\n`, { mode: 0o755 });
        const r = run(`${dir}:/usr/bin:/bin`);
        expect(r.status, body).toBe(code);
        expect(r.stderr).toContain(stderr);
      }
      fs.rmSync(fake);
      const missing = run('/usr/bin:/bin');
      expect(missing.status).toBe(2);
      expect(missing.stderr).toContain('E_GUARD_UNAVAILABLE: editwarden is not installed on this machine');
      expect(missing.stderr).toContain('hint:');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
