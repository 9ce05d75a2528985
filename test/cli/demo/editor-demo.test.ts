import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runEditorDemo } from '../../../src/cli/demo/editor-demo.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('the scripted Editor demo', () => {
  it('fails once, fixes forward, verifies green with a summary; the dry run leaves the disk untouched and its proposal applies green', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-editor-demo-'));
    dirs.push(dir);
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (c: Buffer) => (out += c.toString()));
    const result = await runEditorDemo({ stdout, stderr: new PassThrough(), stdin: Readable.from([]), env: {} }, { dir, color: false });
    expect(result.ok).toBe(true);
    expect(result.status).toBe('success');
    expect(result.applied).toBe('success');
    expect(out).toMatch(/FAIL run \S+/);
    expect(out).toMatch(/PASS run \S+/);
    expect(out).toContain('disk untouched');
    expect(out).toContain('+export function farewell(name) {');
    expect(fs.readFileSync(path.join(result.dir, 'src/greeting.js'), 'utf8')).toContain("return 'Hi, '");
    expect(fs.readFileSync(path.join(result.dir, 'test/farewell.test.js'), 'utf8')).toContain('Bye, Ada!');
    expect(fs.readFileSync(result.summary as string, 'utf8')).toContain('Edit the literal in src/greeting.js only.');
  });
});
