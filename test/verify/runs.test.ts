import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { claimNumberedDir, ensureRunDir, isRunId, listRuns, newRunId, runDir } from '../../src/runs/runs.js';
import { ErrorCode } from '../../src/errors.js';

describe('run ids', () => {
  test('look like 20261121T235959Z-ab12cd and sort by time as strings', () => {
    const a = newRunId(new Date('2026-11-21T23:59:59.900Z'), () => 'ffffff');
    const b = newRunId(new Date('2026-11-22T00:00:00.000Z'), () => '000000');
    expect(a).toBe('20261121T235959Z-ffffff');
    expect(isRunId(newRunId())).toBe(true);
    expect([b, a].sort()).toEqual([a, b]);
  });

  test('runDir refuses anything that is not a run id (no "../" through a flag)', () => {
    const ws = { stateDir: '/x/.editwarden' };
    expect(runDir(ws, '20261121T235959Z-ab12cd')).toBe(path.join('/x/.editwarden/runs/20261121T235959Z-ab12cd'));
    for (const bad of ['../../etc', '20261121T235959Z-ab12cd/../x', '', 'latest']) {
      expect(() => runDir(ws, bad)).toThrow(expect.objectContaining({ code: ErrorCode.USAGE }));
    }
  });

  test('run folders are listed oldest first; numbered folders are claimed once each', () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-runs-'));
    try {
      const ws = { stateDir };
      ensureRunDir(ws, '20261122T000000Z-000000');
      ensureRunDir(ws, '20261121T000000Z-000000');
      fs.mkdirSync(path.join(stateDir, 'runs', 'not-a-run'));
      expect(listRuns(ws)).toEqual(['20261121T000000Z-000000', '20261122T000000Z-000000']);
      const parent = path.join(stateDir, 'runs', '20261121T000000Z-000000', 'verify');
      const claimed = [claimNumberedDir(parent).n, claimNumberedDir(parent).n];
      fs.mkdirSync(path.join(parent, '7'));
      claimed.push(claimNumberedDir(parent).n);
      expect(claimed).toEqual([1, 2, 8]);
    } finally {
      fs.rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
