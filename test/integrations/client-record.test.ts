/**
 * A client is one record (src/integrations/client.ts): the session id is read where the record says the client
 * sends it, by one reader, so the session that keys the ledger and the route of every recorded event are the same
 * id; a client's own edit tool is judged as the editwarden tool its record maps it to.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionOf } from '../../src/integrations/session-id.js';
import { runHook } from '../../src/integrations/hook.js';
import { translateHook } from '../../src/integrations/hook-protocol.js';
import { CLIENTS } from '../../src/integrations/index.js';
import { vetNativeEdit } from '../../src/integrations/vet.js';

const clients = Object.values(CLIENTS);
const allFields = [...new Set(clients.flatMap((c) => c.sessionFields)), 'session', 'sessionID'];

describe('the session id, read once', () => {
  it('each client is read in the field its hooks send (Copilot: sessionId, Cursor: conversation_id, the others: session_id)', () => {
    const sent: Record<string, Record<string, unknown>> = {
      claude: { session_id: 's' },
      gemini: { session_id: 's' },
      codex: { session_id: 's' },
      qwen: { session_id: 's' },
      opencode: { session_id: 's' },
      copilot: { sessionId: 's' },
      cursor: { conversation_id: 's' },
    };
    for (const c of clients) expect({ client: c.name, key: sessionOf(c, sent[c.name] ?? {}) }).toEqual({ client: c.name, key: { client: c.name, session: 's' } });
    // Another client's field is not this client's session.
    expect(sessionOf(CLIENTS.claude as (typeof clients)[number], { sessionId: 's', conversation_id: 's' })).toBeNull();
    expect(sessionOf(CLIENTS.copilot as (typeof clients)[number], { session_id: 's' })).toBeNull();
  });

  it('the session that keys the ledger and the route the records carry are the same id, for any input (property)', () => {
    const id = fc.oneof(fc.string({ maxLength: 210 }), fc.constant(''), fc.integer(), fc.constant(null), fc.string({ minLength: 199, maxLength: 202 }));
    fc.assert(
      fc.property(fc.constantFrom(...clients), fc.dictionary(fc.constantFrom(...allFields), id), fc.constantFrom<'pre' | 'post'>('pre', 'post'), (client, fields, kind) => {
        const input = { tool_name: 'Read', toolName: 'view', ...fields };
        const call = translateHook(client, kind, input);
        expect(call.route.session).toBe(call.session?.session);
        expect(call.session).toEqual(sessionOf(client, input));
        const first = client.sessionFields.map((f) => input[f as keyof typeof input]).find((v) => typeof v === 'string' && v !== '' && v.length <= 200);
        expect(call.session?.session).toBe(first);
      }),
      { numRuns: 300 },
    );
  });
});

/** A project folder with this config, removed after the test. */
let root = '';
afterEach(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
  root = '';
});
function projectWith(config: string): string {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-client-record-'));
  fs.writeFileSync(path.join(root, '.editwarden.yml'), config);
  return root;
}
const client = (name: keyof typeof CLIENTS) => {
  const c = CLIENTS[name];
  if (!c) throw new Error(name);
  return c;
};

describe("a client's edit tool is the editwarden tool its record names", () => {
  it('under allowed_tools without write_file, whole-file writes (Claude Write, Copilot create, Gemini write_file) are refused and part edits pass', async () => {
    projectWith('constraints:\n  allowed_tools: [read_file, edit_file]\n');
    fs.writeFileSync(path.join(root, 'a.txt'), 'alpha\n');
    const file = path.join(root, 'a.txt');
    const edit = (name: keyof typeof CLIENTS, input: Record<string, unknown>) => {
      const c = client(name);
      const native = c.nativeEdit(c.hookInput ? c.hookInput(input) : input);
      if (!native) throw new Error(`${name}: not an edit`);
      return vetNativeEdit(root, native);
    };
    const refused = [
      await edit('claude', { tool_name: 'Write', tool_input: { file_path: file, content: 'x\n' } }),
      await edit('copilot', { toolName: 'create', cwd: root, toolArgs: { path: 'b.txt', file_text: 'x\n' } }),
      await edit('gemini', { tool_name: 'write_file', tool_input: { file_path: file, content: 'x\n' } }),
    ];
    for (const verdict of refused) expect(verdict).toMatchObject({ allow: false, error: { code: 'E_CONSTRAINT', message: expect.stringContaining('write_file') } });
    const allowed = [
      await edit('claude', { tool_name: 'Edit', tool_input: { file_path: file, old_string: 'alpha', new_string: 'beta' } }),
      await edit('copilot', { toolName: 'edit', cwd: root, toolArgs: { path: 'a.txt', old_str: 'alpha', new_str: 'beta' } }),
    ];
    for (const verdict of allowed) expect(verdict).toMatchObject({ allow: true });
  });
});

describe("the refusal names the client's own shell tool, from its record", () => {
  it('under a cap, MCP execute_command is refused with the way through the shell as this client names it (Claude Bash, opencode bash), or with none (Qwen)', async () => {
    projectWith('constraints:\n  max_files: 3\n');
    const ask = async (name: keyof typeof CLIENTS, event: string, input: Record<string, unknown>): Promise<string> => {
      const out = await runHook(client(name), event, JSON.stringify(input), { root, env: {}, cwd: root });
      return `${out.stdout ?? ''}${out.stderr ?? ''}`;
    };
    const claude = await ask('claude', 'pre-tool-use', { session_id: 's', tool_name: 'mcp__editwarden__execute_command', tool_input: { command: 'touch a' } });
    expect(claude).toContain('E_SESSION_ROUTE');
    expect(claude).toContain('your own shell tool (Bash)');
    const opencode = await ask('opencode', 'tool-before', { session_id: 's', tool_name: 'editwarden_execute_command', tool_input: { command: 'touch a' }, cwd: root });
    expect(opencode).toContain('your own shell tool (bash)');
    const qwen = await ask('qwen', 'pre-tool-use', { session_id: 's', tool_name: 'mcp__editwarden__execute_command', tool_input: { command: 'touch a' } });
    expect(qwen).toContain("This client's own shell cannot be guarded either");
  });
});
