import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connect, spawnRaw, tempRoot, type Connected } from './helpers/server.js';

const ALL_TOOLS = [
  'read_file',
  'list_files',
  'search_files',
  'edit_file',
  'write_file',
  'apply_patch',
  'checkpoint_create',
  'checkpoint_list',
  'checkpoint_restore',
  'undo_list',
  'undo_steps',
  'redo_steps',
  'verify',
  'detect',
  'execute_command',
];

function numbered(n: number, width = 0): string {
  const out: string[] = [];
  for (let i = 1; i <= n; i++) out.push(`line ${i}${width > 0 ? ` ${'x'.repeat(width)}` : ''}`);
  return `${out.join('\n')}\n`;
}

describe('editwarden mcp over stdio: the tools', () => {
  let root: string;
  let server: Connected;

  beforeAll(async () => {
    root = tempRoot({
      'src/app.txt': 'alpha\nbeta\ngamma\n',
      'src/dup.txt': 'same\nsame\n',
      'notes/readme.md': '# Notes\nfind me here\n',
      'big.txt': numbered(3000, 100),
      'package.json': JSON.stringify({ name: 'p', scripts: { build: 'true', test: 'true' } }),
      '.editwarden.yml': 'verify:\n  build: "true"\n  test: "sh -c \'echo src/app.txt:1:1: error: broken; exit 1\'"\n',
    });
    server = await connect(['--root', root]);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('lists every tool with its input schema, the MCP-only fields and annotations', async () => {
    const { tools } = await server.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(ALL_TOOLS);
    const edit = tools.find((t) => t.name === 'edit_file');
    const props = (edit?.inputSchema as { properties: Record<string, unknown> }).properties;
    expect(Object.keys(props)).toEqual(expect.arrayContaining(['path', 'mode', 'old_text', 'new_text', 'dry_run']));
    expect(edit?.description).toMatch(/unique/);
    expect(edit?.description).toMatch(/append/);
    expect(edit?.description).toMatch(/overwrite .*explicit/);
    const read = tools.find((t) => t.name === 'read_file');
    expect(Object.keys((read?.inputSchema as { properties: Record<string, unknown> }).properties)).toEqual(expect.arrayContaining(['offset', 'limit', 'start_line']));
    expect(read?.annotations?.readOnlyHint).toBe(true);
    expect(tools.find((t) => t.name === 'checkpoint_restore')?.annotations?.destructiveHint).toBe(true);
  });

  it('read_file returns numbered lines and the hash, with metadata (not the text) as structured content', async () => {
    const r = await call(server.client, 'read_file', { path: 'src/app.txt' });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('1\talpha\n2\tbeta\n3\tgamma');
    expect(r.structured).toMatchObject({ ok: true, path: 'src/app.txt', total_lines: 3, start_line: 1, end_line: 3, truncated: false });
    expect(r.structured.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(r.structured)).not.toContain('gamma');
  });

  it('read_file pages with offset and limit', async () => {
    const r = await call(server.client, 'read_file', { path: 'big.txt', offset: 10, limit: 5 });
    expect(r.structured).toMatchObject({ start_line: 10, end_line: 14, truncated: true, next_offset: 15 });
    expect(
      r.text
        .split('\n')
        .slice(1, 6)
        .map((l) => l.split('\t')[1]?.split(' ')[0]),
    ).toEqual(['line', 'line', 'line', 'line', 'line']);
    expect(r.text).toContain('10\tline 10 ');
    expect(r.text).toContain('14\tline 14 ');
    expect(r.text).not.toContain('15\tline 15 ');
  });

  it('read_file cuts a page that is too large for a client at a line boundary and says where to read on; the pages cover the file exactly', async () => {
    const seen: string[] = [];
    let offset: number | undefined = 1;
    let pages = 0;
    while (offset !== undefined) {
      const r = await call(server.client, 'read_file', { path: 'big.txt', offset, line_numbers: false });
      expect(r.isError).toBe(false);
      expect(r.text.length).toBeLessThan(61_000);
      const body = r.text.split('\n').slice(1);
      const end = r.structured.end_line as number;
      seen.push(...body.slice(0, end - (r.structured.start_line as number) + 1));
      offset = r.structured.next_offset as number | undefined;
      pages++;
    }
    expect(pages).toBeGreaterThan(4);
    expect(`${seen.join('\n')}\n`).toBe(fs.readFileSync(path.join(root, 'big.txt'), 'utf8'));
  });

  it('list_files and search_files find files and lines', async () => {
    const list = await call(server.client, 'list_files', {});
    expect(list.text).toContain('src/app.txt');
    expect(list.text).not.toContain('.editwarden/');
    const search = await call(server.client, 'search_files', { pattern: 'find me' });
    expect(search.text).toContain('notes/readme.md:2:find me here');
    expect(search.structured).toMatchObject({ count: 1, matches: [{ path: 'notes/readme.md', line: 2 }] });
  });

  it('edit_file with dry_run shows the diff and writes nothing', async () => {
    const r = await call(server.client, 'edit_file', { path: 'src/app.txt', old_text: 'beta', new_text: 'BETA', dry_run: true });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('-beta\n+BETA');
    expect(r.text).toContain('Nothing was written.');
    expect(r.structured).toMatchObject({ dry_run: true, changes: [{ path: 'src/app.txt', added: 1, removed: 1 }] });
    expect(fs.readFileSync(path.join(root, 'src/app.txt'), 'utf8')).toBe('alpha\nbeta\ngamma\n');
  });

  it('edit_file replaces a unique old_text and returns the diff once (in the text, not the structured content)', async () => {
    const r = await call(server.client, 'edit_file', { path: 'src/app.txt', old_text: 'beta', new_text: 'BETA' });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('-beta\n+BETA');
    expect(fs.readFileSync(path.join(root, 'src/app.txt'), 'utf8')).toBe('alpha\nBETA\ngamma\n');
    expect(JSON.stringify(r.structured)).not.toContain('+BETA');
    expect(r.structured).toMatchObject({ files_changed: ['src/app.txt'], lines_added: 1, lines_removed: 1 });
  });

  it('edit_file refuses a missing old_text and an ambiguous one with code, message and hint, writing nothing', async () => {
    const missing = await call(server.client, 'edit_file', { path: 'src/app.txt', old_text: 'delta', new_text: 'x' });
    expect(missing.isError).toBe(true);
    expect(missing.error?.code).toBe('E_NOT_FOUND');
    expect(missing.error?.message).toContain('delta');
    expect(missing.error?.hint.length).toBeGreaterThan(10);
    const ambiguous = await call(server.client, 'edit_file', { path: 'src/dup.txt', old_text: 'same', new_text: 'other' });
    expect(ambiguous.isError).toBe(true);
    expect(ambiguous.error?.code).toBe('E_AMBIGUOUS');
    expect(fs.readFileSync(path.join(root, 'src/dup.txt'), 'utf8')).toBe('same\nsame\n');
  });

  it('write_file creates a file and refuses to overwrite without overwrite: true', async () => {
    const created = await call(server.client, 'write_file', { path: 'new/file.txt', content: 'hello\n' });
    expect(created.isError).toBe(false);
    expect(fs.readFileSync(path.join(root, 'new/file.txt'), 'utf8')).toBe('hello\n');
    const again = await call(server.client, 'write_file', { path: 'new/file.txt', content: 'bye\n' });
    expect(again.error?.code).toBe('E_EXISTS');
    expect(fs.readFileSync(path.join(root, 'new/file.txt'), 'utf8')).toBe('hello\n');
    const preview = await call(server.client, 'write_file', { path: 'new/file.txt', content: 'bye\n', overwrite: true, dry_run: true });
    expect(preview.isError).toBe(false);
    expect(fs.readFileSync(path.join(root, 'new/file.txt'), 'utf8')).toBe('hello\n');
  });

  it('apply_patch applies an apply_patch envelope', async () => {
    const patch = ['*** Begin Patch', '*** Update File: src/app.txt', '@@', ' alpha', '-BETA', '+beta again', ' gamma', '*** End Patch', ''].join('\n');
    const r = await call(server.client, 'apply_patch', { patch });
    expect(r.isError).toBe(false);
    expect(fs.readFileSync(path.join(root, 'src/app.txt'), 'utf8')).toBe('alpha\nbeta again\ngamma\n');
  });

  it('checkpoint_create, checkpoint_list and checkpoint_restore put files back exactly and remove files created since', async () => {
    const created = await call(server.client, 'checkpoint_create', { name: 'before-risk', reason: 'test' });
    expect(created.isError).toBe(false);
    const id = created.structured.id as string;
    expect(id).toMatch(/\d/);
    await call(server.client, 'edit_file', { path: 'src/app.txt', old_text: 'alpha', new_text: 'ALPHA' });
    await call(server.client, 'write_file', { path: 'scratch.txt', content: 'temp\n' });
    const list = await call(server.client, 'checkpoint_list', {});
    expect(list.text).toContain(id);
    expect(list.text).toContain('before-risk');
    const restored = await call(server.client, 'checkpoint_restore', { id });
    expect(restored.isError).toBe(false);
    expect(fs.readFileSync(path.join(root, 'src/app.txt'), 'utf8')).toBe('alpha\nbeta again\ngamma\n');
    expect(fs.existsSync(path.join(root, 'scratch.txt'))).toBe(false);
    expect(restored.structured.safety).toEqual(expect.any(String));
    const unknown = await call(server.client, 'checkpoint_restore', { id: 'nope' });
    expect(unknown.isError).toBe(true);
    expect(unknown.error?.hint.length).toBeGreaterThan(0);
  });

  it('verify runs the configured build (pass) and test (fail, with diagnostics and E_VERIFY_FAILED)', async () => {
    const build = await call(server.client, 'verify', { kind: 'build' });
    expect(build.isError).toBe(false);
    expect(build.structured).toMatchObject({ passed: true, command: 'true', source: 'config' });
    const test = await call(server.client, 'verify', { kind: 'test' });
    expect(test.isError).toBe(true);
    expect(test.error?.code).toBe('E_VERIFY_FAILED');
    expect(test.text).toContain('broken');
  });

  it('detect names the project kind and its commands', async () => {
    const r = await call(server.client, 'detect', {});
    expect(r.isError).toBe(false);
    expect(r.structured.kinds).toContain('node');
    expect(r.text).toContain('verify.build (config): true');
  });
});

/**
 * One server (a plain `--root` over a.txt, and link.txt leading to a secret outside) for the sandbox's refusals and
 * the malformed requests: the first block to run starts it, the file's end closes it.
 */
let plain: Promise<{ root: string; outside: string; server: Connected }> | undefined;
const plainServer = (): Promise<{ root: string; outside: string; server: Connected }> => {
  plain ??= (async () => {
    const outside = tempRoot({ 'secret.txt': 'top secret\n' });
    const root = tempRoot({ 'a.txt': 'a\n' });
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
    return { root, outside, server: await connect(['--root', root]) };
  })();
  return plain;
};
afterAll(async () => {
  await (await plain)?.server.close();
});

describe('editwarden mcp over stdio: the sandbox', () => {
  let outside: string;
  let server: Connected;

  beforeAll(async () => {
    ({ outside, server } = await plainServer());
  });

  for (const [label, p] of [
    ['a ".." path', '../secret.txt'],
    ['an absolute path', '/etc/passwd'],
    ['a symlink that leads out', 'link.txt'],
  ] as const) {
    it(`refuses ${label} for reading and editing with E_OUTSIDE_ROOT`, async () => {
      const read = await call(server.client, 'read_file', { path: p });
      expect(read.isError).toBe(true);
      expect(read.error?.code).toBe('E_OUTSIDE_ROOT');
      expect(read.text).not.toContain('top secret');
      const edit = await call(server.client, 'edit_file', { path: p, mode: 'overwrite', new_text: 'pwned\n' });
      expect(edit.isError).toBe(true);
      expect(edit.error?.code).toBe('E_OUTSIDE_ROOT');
      expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
    });
  }

  it("refuses editwarden's own state folder with E_DENIED_PATH", async () => {
    const r = await call(server.client, 'write_file', { path: '.editwarden/journal/x.json', content: '{}' });
    expect(r.isError).toBe(true);
    expect(r.error?.code).toBe('E_DENIED_PATH');
  });
});

describe('editwarden mcp over stdio: constraints', () => {
  it('refuses a write to a denied pattern with E_CONSTRAINT and the violation; interactive: the next call runs in a new run', async () => {
    const root = tempRoot({ 'a.txt': 'a\n', 'secret/key.txt': 'k\n', '.editwarden.yml': 'constraints:\n  denied_patterns: ["secret/**"]\n' });
    const server = await connect(['--root', root]);
    try {
      const r = await call(server.client, 'edit_file', { path: 'secret/key.txt', old_text: 'k', new_text: 'K' });
      expect(r.isError).toBe(true);
      expect(r.error?.code).toBe('E_CONSTRAINT');
      expect(r.structured.violation).toMatchObject({ type: 'Pattern', constraint: 'denied_patterns', prevented: true });
      expect(r.error?.hint).toContain('secret');
      expect(r.text).toContain('next tool call starts a new run');
      expect(fs.readFileSync(path.join(root, 'secret/key.txt'), 'utf8')).toBe('k\n');
      const next = await call(server.client, 'edit_file', { path: 'a.txt', old_text: 'a', new_text: 'b' });
      expect(next.isError).toBe(false);
      expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('b\n');
    } finally {
      await server.close();
    }
    // The ended run left its report; closing the session finished the second run.
    const runs = fs.readdirSync(path.join(root, '.editwarden/runs'));
    expect(runs.length).toBe(2);
    expect(runs.some((id) => fs.existsSync(path.join(root, '.editwarden/runs', id, 'violation.json')) || fs.readdirSync(path.join(root, '.editwarden/runs', id)).some((f) => f.startsWith('violation')))).toBe(true);
    expect(runs.every((id) => fs.existsSync(path.join(root, '.editwarden/runs', id, 'metrics.json')))).toBe(true);
  });

  it('headless: a max_files violation ends the session run and every later call is refused with E_RUN_ENDED', async () => {
    const root = tempRoot({ 'a.txt': 'a\n', 'b.txt': 'b\n', '.editwarden.yml': 'constraints:\n  max_files: 1\n' });
    const server = await connect(['--root', root, '--headless']);
    try {
      expect((await call(server.client, 'edit_file', { path: 'a.txt', old_text: 'a', new_text: 'A' })).isError).toBe(false);
      const second = await call(server.client, 'edit_file', { path: 'b.txt', old_text: 'b', new_text: 'B' });
      expect(second.isError).toBe(true);
      expect(second.structured.violation).toMatchObject({ type: 'FileModification', constraint: 'max_files', limit: 1, actual: 2 });
      expect(second.text).toContain('accepts no more tool calls');
      expect(fs.readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('b\n');
      const later = await call(server.client, 'read_file', { path: 'a.txt' });
      expect(later.isError).toBe(true);
      expect(later.error?.code).toBe('E_RUN_ENDED');
    } finally {
      await server.close();
    }
  });

  it('on_violation: rollback undoes the whole run when a violation ends it', async () => {
    const root = tempRoot({ 'a.txt': 'a\n', 'b.txt': 'b\n', '.editwarden.yml': 'constraints:\n  max_files: 1\n  on_violation: rollback\n' });
    const server = await connect(['--root', root, '--headless']);
    try {
      await call(server.client, 'edit_file', { path: 'a.txt', old_text: 'a', new_text: 'A' });
      expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('A\n');
      const second = await call(server.client, 'edit_file', { path: 'b.txt', old_text: 'b', new_text: 'B' });
      expect(second.text).toContain('on_violation: rollback');
      expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
    } finally {
      await server.close();
    }
  });

  it('lists only allowed tools; calling another is a ToolRestriction violation', async () => {
    const root = tempRoot({ 'a.txt': 'a\n', '.editwarden.yml': 'constraints:\n  allowed_tools: [read_file, edit_file]\n' });
    const server = await connect(['--root', root]);
    try {
      const { tools } = await server.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['read_file', 'edit_file']);
      const r = await call(server.client, 'write_file', { path: 'b.txt', content: 'b\n' });
      expect(r.isError).toBe(true);
      expect(r.structured.violation).toMatchObject({ type: 'ToolRestriction', constraint: 'allowed_tools' });
      expect(fs.existsSync(path.join(root, 'b.txt'))).toBe(false);
      // A dry run is allowed wherever its write tool is.
      const preview = await call(server.client, 'edit_file', { path: 'a.txt', old_text: 'a', new_text: 'b', dry_run: true });
      expect(preview.text).not.toMatch(/^E_/);
      expect(preview.isError).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('a dry run that would break a limit says so without ending the run', async () => {
    const root = tempRoot({ 'a.txt': 'a\n', '.editwarden.yml': 'constraints:\n  max_lines_changed: 1\n' });
    const server = await connect(['--root', root]);
    try {
      const r = await call(server.client, 'edit_file', { path: 'a.txt', old_text: 'a', new_text: 'b', dry_run: true });
      expect(r.isError).toBe(false);
      expect(r.text).toContain('would be refused');
      expect(r.structured.would_violate).toMatchObject({ constraint: 'max_lines_changed' });
      expect((await call(server.client, 'read_file', { path: 'a.txt' })).isError).toBe(false);
    } finally {
      await server.close();
    }
  });
});

describe('editwarden mcp over stdio: malformed requests', () => {
  let root: string;
  let server: Connected;

  beforeAll(async () => {
    ({ root, server } = await plainServer());
  });

  it('answers an unknown tool with E_UNKNOWN_TOOL and the list of tools', async () => {
    const r = await call(server.client, 'rm_rf', {});
    expect(r.isError).toBe(true);
    expect(r.error?.code).toBe('E_UNKNOWN_TOOL');
    expect(r.error?.hint).toContain('edit_file');
  });

  it('answers wrong argument types, unknown fields and bad paging with E_PARSE naming the field', async () => {
    const wrongType = await call(server.client, 'edit_file', { path: 42, old_text: 'a', new_text: 'b' });
    expect(wrongType.error?.code).toBe('E_PARSE');
    expect(wrongType.error?.message).toContain('path');
    const unknown = await call(server.client, 'read_file', { path: 'a.txt', colour: 'red' });
    expect(unknown.error?.code).toBe('E_PARSE');
    expect(unknown.error?.message).toContain('colour');
    const paging = await call(server.client, 'read_file', { path: 'a.txt', offset: -3 });
    expect(paging.error?.code).toBe('E_PARSE');
    const dry = await call(server.client, 'edit_file', { path: 'a.txt', old_text: 'a', new_text: 'b', dry_run: 'yes' });
    expect(dry.error?.code).toBe('E_PARSE');
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
  });

  it('still serves after all of that', async () => {
    const r = await call(server.client, 'read_file', { path: 'a.txt' });
    expect(r.isError).toBe(false);
  });
});

describe('editwarden mcp over stdio: bytes that are not JSON-RPC', () => {
  it('skips a malformed line, answers the next request, and exits when stdin closes', async () => {
    const root = tempRoot({ 'a.txt': 'a\n' });
    const child = spawnRaw(['--root', root]);
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const send = (line: string): void => {
      child.stdin?.write(`${line}\n`);
    };
    send('this is not json');
    send('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}');
    send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    send('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{}}}');
    send('[1,2,3]');
    send('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}');
    // Bounded at 30 s, not 5: a loaded machine can take seconds to start the server (waiting ends as soon as id 3 arrives).
    for (let i = 0; i < 600 && !out.includes('"id":3'); i++) await new Promise((r) => setTimeout(r, 50));
    const replies = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id?: number; error?: unknown; result?: { content?: Array<{ text: string }> } });
    expect(replies.find((r) => r.id === 2)?.error).toBeDefined();
    expect(replies.find((r) => r.id === 3)?.result?.content?.[0]?.text).toContain('1\ta');
    child.stdin?.end();
    expect(await exited).toBe(0);
  });
});
