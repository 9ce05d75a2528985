/**
 * Command-line mistakes get one line (what was wrong, the nearest valid
 * name, where the help is) and exit 64 — never the whole help; with --json
 * the same facts as the E_USAGE envelope. And every command's --help ends
 * with examples.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { allRegistrars, buildProgram, run } from '../../src/cli/main.js';
import type { Io } from '../../src/cli/output.js';

const BIN = path.resolve(__dirname, '../../bin/editwarden');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-usage-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function cli(args: string[]) {
  // FORCE_COLOR left out, not emptied: Node 22.23 warns on stderr when NO_COLOR and any FORCE_COLOR are both set.
  const { FORCE_COLOR: _forced, ...env } = process.env;
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: root, encoding: 'utf8', env: { ...env, NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function lines(text: string): string[] {
  return text.split('\n').filter((l) => l !== '');
}

describe('a mistyped flag or command gets one line, a did-you-mean and the --help hint (exit 64)', () => {
  it('an unknown flag names the nearest flag and the command whose help to read', () => {
    const r = cli(['edit', 'a.txt', '--dry-rn']);
    expect(r.code).toBe(64);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toEqual(["error: unknown option '--dry-rn'; did you mean --dry-run? (Run `editwarden edit --help` for the options and examples)"]);
  });

  it('an unknown command names the nearest command', () => {
    const r = cli(['edti']);
    expect(r.code).toBe(64);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toContain('did you mean edit?');
    expect(r.stderr).toContain('`editwarden --help`');
    expect(r.stderr).not.toContain('Usage:');
  });

  it('an unknown subcommand points at its parent command’s help', () => {
    const r = cli(['checkpoint', 'lst']);
    expect(r.code).toBe(64);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toContain('did you mean list?');
    expect(r.stderr).toContain('`editwarden checkpoint --help`');
  });

  it('a missing argument is one line too', () => {
    const r = cli(['exec']);
    expect(r.code).toBe(64);
    expect(lines(r.stderr)).toEqual(["error: missing required argument 'calls' (Run `editwarden exec --help` for the options and examples)"]);
  });

  it('with --json the usage error is the E_USAGE envelope on stdout, and stderr stays empty', () => {
    const r = cli(['verify', '--json', '--buidl']);
    expect(r.code).toBe(64);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      ok: false,
      results: [],
      error: { code: 'E_USAGE', message: "unknown option '--buidl'; did you mean --build?", hint: 'Run `editwarden verify --help` for the options and examples.' },
    });
  });
});

function captureIo(): Io & { out: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let text = '';
  stdout.on('data', (c: Buffer) => (text += c.toString()));
  stderr.on('data', (c: Buffer) => (text += c.toString()));
  return { stdout, stderr, stdin: new PassThrough(), env: { NO_COLOR: '1' }, out: () => text };
}

function commandPaths(command: Command, prefix: string[] = []): string[][] {
  const here = command.parent ? [...prefix, command.name()] : [];
  return [here, ...command.commands.filter((c) => c.name() !== 'help').flatMap((c) => commandPaths(c, here))];
}

describe('every --help has examples', async () => {
  const program = buildProgram(captureIo(), () => undefined, await allRegistrars());
  const paths = commandPaths(program);

  it('finds every command (and subcommand) to check', () => {
    expect(paths.map((p) => p.join(' '))).toEqual(expect.arrayContaining(['', 'edit', 'doctor', 'checkpoint restore', 'ast show', 'mcp']));
  });

  for (const words of paths) {
    it(`editwarden ${words.join(' ')} --help`.replace(/ +/g, ' '), async () => {
      const io = captureIo();
      expect(await run(['node', 'editwarden', ...words, '--help'], io)).toBe(0);
      const help = io.out();
      expect(help).toContain('Examples:');
      const examples = help
        .slice(help.indexOf('Examples:'))
        .split('\n')
        .filter((l) => l.trim().startsWith('$ '));
      expect(examples.length).toBeGreaterThan(0);
      for (const example of examples) expect(example).toContain(`editwarden ${words.join(' ')}`.trim());
    });
  }
});
