import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { livingMembers } from '../../src/verify/process-group.js';

const RUNNER = path.resolve(__dirname, '../../dist/verify/runner.js');

describe('commands never outlive editwarden', () => {
  it('a process that exits abruptly (second Ctrl-C, process.exit) kills the command groups it started', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-exit-'));
    const pgidFile = path.join(dir, 'pgid');
    const script = `
      import { runCommand } from ${JSON.stringify(RUNNER)};
      runCommand({ sandbox: 'none', command: 'echo $$ > ${pgidFile}; sleep 30 & sleep 30', cwd: ${JSON.stringify(dir)}, timeoutMs: 60000 });
      setTimeout(() => process.exit(130), 700);
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(r.status).toBe(130);
    const pgid = Number(fs.readFileSync(pgidFile, 'utf8').trim());
    expect(pgid).toBeGreaterThan(1);
    // SIGKILL is delivered at once; give the kernel a moment to reap.
    for (let i = 0; i < 50 && livingMembers(pgid).length > 0; i++) await new Promise((res) => setTimeout(res, 100));
    expect(livingMembers(pgid)).toEqual([]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
