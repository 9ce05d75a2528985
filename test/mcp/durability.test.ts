// checkpoints.durability through the MCP route: a real `editwarden mcp` under strace answers a lone edit once the
// file is in place (its temp file fsynced before the rename) and makes the checkpoint durable right after the
// answer, before the next answer; `strict` keeps everything before the rename. A deferred fsync that fails is said
// in the next answer, which does nothing else (in-process server: the failure is injected at the fsync).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { McpSession } from '../../src/mcp/session.js';
import { setDurableObserver, settleDurable, takeDurabilityFailure } from '../../src/workspace/durable.js';
import { renameOrdersDataOf } from '../../src/workspace/replace-order.js';
import { call, mcpProgram, tempRoot } from './helpers/server.js';
import { tempDir } from '../temp-dirs.js';

afterEach(() => {
  setDurableObserver(null);
  settleDurable();
  takeDurabilityFailure();
});

const LINE = (i: number) => `const value_${i} = compute(${i});`;
const TEXT = `${Array.from({ length: 50 }, (_, i) => LINE(i)).join('\n')}\n`;

interface Traced {
  /** One line per syscall of the server, in order (strace -f -y: fds shown with their paths). */
  lines: string[];
  /** Whether the project's file system orders a replacing rename after the data (replace-order.ts): then the temp file's fsync may follow the answer too. */
  ordered: boolean;
}

/** Three edit_file calls of a real server under strace, each flipping line 10; returns its syscall log. */
async function tracedEdits(files: Record<string, string>): Promise<Traced> {
  const root = tempRoot({ 'f.txt': TEXT, ...files });
  const log = path.join(tempDir('ew-strace-'), 'trace.txt');
  const transport = new StdioClientTransport({
    command: 'strace',
    args: ['-f', '-y', '-qq', '-e', 'trace=fsync,fdatasync,rename,renameat,renameat2,read,write', '-o', log, process.execPath, mcpProgram(), 'mcp', '--root', root],
    stderr: 'pipe',
    env: { ...process.env, NO_COLOR: '1' } as Record<string, string>,
  });
  const client = new Client({ name: 'durability-test', version: '0' });
  await client.connect(transport);
  try {
    for (let i = 0; i < 3; i++) {
      const [from, to] = i % 2 === 0 ? [LINE(10), LINE(10).replace('compute', 'recompute')] : [LINE(10).replace('compute', 'recompute'), LINE(10)];
      const reply = await call(client, 'edit_file', { path: 'f.txt', old_text: from, new_text: to });
      expect(reply.isError, reply.text).toBe(false);
    }
  } finally {
    await client.close();
  }
  // strace writes its log as the traced process ends; the server ends on the closed stdin.
  for (let i = 0; i < 100 && !/exited with|\+\+\+ exited/.test(safeRead(log)); i++) await new Promise((r) => setTimeout(r, 50));
  const fd = fs.openSync(root, 'r');
  try {
    return { lines: safeRead(log).split('\n'), ordered: renameOrdersDataOf(fd) };
  } finally {
    fs.closeSync(fd);
  }
}

function safeRead(p: string): string {
  try {
    return fs.readFileSync(p, 'utf8');
  } catch {
    return '';
  }
}

/** Indexes of the lines matching `re`. */
const at = (t: Traced, re: RegExp): number[] => t.lines.flatMap((l, i) => (re.test(l) ? [i] : []));
/** The answers the server wrote to the client (stdout, fd 1, carrying a tools/call result). */
const answers = (t: Traced): number[] => at(t, /write\(1(<[^>]*>)?, "\{\\"result\\":\{\\"content/);
const renamesOfF = (t: Traced): number[] => at(t, /rename(at2?)?\(.*\.ew-tmp-f\.txt\.[^"]*", .*\/f\.txt"/);
const manifestFsyncs = (t: Traced): number[] => at(t, /fsync\(\d+<[^>]*\/checkpoints\/manifests\/files\/[^>]*\.json>\)/);
const tempFsyncs = (t: Traced): number[] => at(t, /fsync\(\d+<[^>]*\/\.ew-tmp-f\.txt\.[^>]*>\)/);
/** The written file's fsync through the temp file's descriptor after its rename (strace shows the descriptor's new name). */
const fileFsyncs = (t: Traced): number[] => at(t, /fsync\(\d+<[^>]*\/f\.txt>\)/);

describe('checkpoints.durability through a real MCP server (strace)', () => {
  it('deferred (the default): temp fsync → rename → answer → the checkpoint fsync, before the next answer', async () => {
    const t = await tracedEdits({});
    const renames = renamesOfF(t);
    const sent = answers(t);
    const manifests = manifestFsyncs(t);
    const temps = tempFsyncs(t);
    const files = fileFsyncs(t);
    expect(renames).toHaveLength(3);
    // Where the file system does not order a replacing rename after the data (any but ext4 in data=journal), the temp file is fsynced before it; there, after the answer.
    expect(temps).toHaveLength(t.ordered ? 0 : 3);
    expect(files).toHaveLength(t.ordered ? 3 : 0);
    expect(manifests.length).toBeGreaterThanOrEqual(3);
    for (let i = 0; i < 3; i++) {
      const rename = renames[i] as number;
      // The answer of this edit is the first answer after its rename.
      const answer = sent.find((a) => a > rename) as number;
      expect(answer).toBeGreaterThan(rename);
      const next = sent.find((a) => a > answer);
      if (t.ordered) {
        // "Old or new" rests on the rename's ordering: the file's own fsync follows the answer, before the next one.
        expect(files[i]).toBeGreaterThan(answer);
        if (next !== undefined) expect(files[i]).toBeLessThan(next);
      } else {
        // "Old or new" after any crash: the temp file is on disk before its rename.
        expect(temps[i]).toBeLessThan(rename);
      }
      // Its checkpoint reaches the disk after the answer…
      const manifest = manifests.find((m) => m > rename) as number;
      expect(manifest).toBeGreaterThan(answer);
      // …and before the next answer.
      if (next !== undefined) expect(manifest).toBeLessThan(next);
    }
  });

  it('strict: the checkpoint is on disk before the rename, as a one-shot command does it', async () => {
    const t = await tracedEdits({ '.editwarden.yml': 'checkpoints:\n  durability: strict\n' });
    const renames = renamesOfF(t);
    const manifests = manifestFsyncs(t);
    expect(renames).toHaveLength(3);
    for (const rename of renames) {
      const before = manifests.filter((m) => m < rename);
      const previous = renames.filter((r) => r < rename).pop() ?? -1;
      expect(
        before.some((m) => m > previous),
        `a manifest fsync between the previous rename and line ${rename}`,
      ).toBe(true);
    }
  });
});

describe('a deferred fsync that fails', () => {
  it('is the next answer (E_IO naming the path), which does nothing else; the answer after it is normal', async () => {
    const root = tempRoot({ 'f.txt': TEXT });
    const session = new McpSession({ cliRoot: root, cliRootExplicit: true, mode: 'interactive', log: () => undefined });
    const server = createMcpServer(session, () => undefined);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'durability-test', version: '0' });
    await client.connect(clientSide);
    try {
      // The observer sees each fsync as it completes: throwing there stands for the disk's error on the checkpoint.
      // Once: whether the settle runs right after the first answer or at the start of the second call.
      let failed = false;
      setDurableObserver((e) => {
        if (failed || e.op !== 'fsync' || !e.path.includes('/checkpoints/manifests/files/')) return;
        failed = true;
        throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
      });
      const first = await call(client, 'edit_file', { path: 'f.txt', old_text: LINE(1), new_text: 'one' });
      expect(first.isError, first.text).toBe(false);
      const second = await call(client, 'edit_file', { path: 'f.txt', old_text: LINE(2), new_text: 'two' });
      expect(second.isError).toBe(true);
      expect(second.error?.code).toBe('E_IO');
      expect(second.error?.message).toMatch(/checkpoints\/manifests\/files\/.*\.json/);
      expect(second.error?.message).toMatch(/This call did nothing/);
      expect(fs.readFileSync(path.join(root, 'f.txt'), 'utf8')).not.toContain('two');
      const third = await call(client, 'edit_file', { path: 'f.txt', old_text: LINE(2), new_text: 'two' });
      expect(third.isError, third.text).toBe(false);
      expect(fs.readFileSync(path.join(root, 'f.txt'), 'utf8')).toContain('two');
    } finally {
      await client.close();
      await server.close();
      await session.close();
    }
  });
});
