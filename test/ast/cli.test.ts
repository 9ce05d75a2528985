import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerAst } from '../../src/cli/commands/ast.js';
import type { Io } from '../../src/cli/output.js';
import { fixture } from './helpers.js';
import { tempDir } from '../temp-dirs.js';

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const io: Io = { stdout, stderr, stdin: new PassThrough(), env: { NO_COLOR: '1' } };
  let code = -1;
  const program = new Command().exitOverride();
  registerAst(program, io, (c) => (code = c));
  await program.parseAsync(['node', 'editwarden', ...args]);
  return { code, out, err };
}

function workspace(): string {
  const dir = tempDir('ew-ast-cli-');
  fs.writeFileSync(path.join(dir, 'greeter.py'), fixture('sample.py'));
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'hello\n');
  return dir;
}

describe('editwarden ast list', () => {
  it('prints every path with kind and line range', async () => {
    const root = workspace();
    const { code, out } = await run(['ast', 'list', 'greeter.py', '--root', root]);
    expect(code).toBe(0);
    expect(out).toMatch(/Greeter-greet\s+method\s+14-17/);
    expect(out).toMatch(/Greeter-twice#2\s+method\s+22-23/);
  });

  it('--json gives the entries with lines and offsets', async () => {
    const root = workspace();
    const { code, out } = await run(['ast', 'list', 'greeter.py', '--root', root, '--json']);
    expect(code).toBe(0);
    const json = JSON.parse(out) as { ok: boolean; entries: { path: string; kind: string; startLine: number; endLine: number; start: number; end: number }[] };
    expect(json.ok).toBe(true);
    const greet = json.entries.find((e) => e.path === 'Greeter-greet');
    expect(greet).toMatchObject({ kind: 'method', startLine: 14, endLine: 17 });
    expect(fixture('sample.py').slice(greet?.start, greet?.end)).toMatch(/^# Greets someone\.\n {4}@staticmethod\n {4}def greet/);
  });

  it('a file without a grammar is refused with E_PARSE and exit code 1', async () => {
    const root = workspace();
    const { code, err } = await run(['ast', 'list', 'notes.txt', '--root', root]);
    expect(code).toBe(1);
    expect(err).toContain('E_PARSE');
  });

  it('a file outside the root is refused', async () => {
    const root = workspace();
    const { code, out } = await run(['ast', 'list', '../../etc/passwd', '--root', root, '--json']);
    expect(code).toBe(1);
    expect(JSON.parse(out).error.code).toBe('E_OUTSIDE_ROOT');
  });
});

describe('editwarden ast show', () => {
  it('prints the node text with the comments that belong to it', async () => {
    const root = workspace();
    const { code, out } = await run(['ast', 'show', 'greeter.py', 'Greeter-greet', '--root', root]);
    expect(code).toBe(0);
    expect(out).toBe('    # Greets someone.\n    @staticmethod\n    def greet(who):\n        return "hi " + who\n');
  });

  it('an ambiguous path exits 1 with E_AST_AMBIGUOUS and the candidates', async () => {
    const root = workspace();
    const { code, out } = await run(['ast', 'show', 'greeter.py', 'Greeter-twice', '--root', root, '--json']);
    expect(code).toBe(1);
    const json = JSON.parse(out) as { error: { code: string; message: string } };
    expect(json.error.code).toBe('E_AST_AMBIGUOUS');
    expect(json.error.message).toContain('Greeter-twice#1 (method, lines 19-20)');
    expect(json.error.message).toContain('Greeter-twice#2 (method, lines 22-23)');
  });

  it('#N picks one', async () => {
    const root = workspace();
    const { code, out } = await run(['ast', 'show', 'greeter.py', 'Greeter-twice#2', '--root', root]);
    expect(code).toBe(0);
    expect(out).toContain('def twice(self, a):');
  });
});
