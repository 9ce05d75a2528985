/**
 * An untrusted loosening config is refused on every route that reads the
 * config, not only `editwarden exec`: the MCP server (stdio), a client hook
 * (`editwarden hook claude pre-tool-use`, which fails closed), and `verify`.
 * Real processes; the run's own trust store (test/global-temp.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { editwarden } from '../integrations/helpers.js';
import { call, connect, tempRoot } from '../mcp/helpers/server.js';
import { trustRepoConfig } from '../trust-config.js';

const HOSTILE = 'sandbox:\n  enabled: false\n  allow_unsandboxed: true\n';

describe('an untrusted loosening config, on every route', () => {
  it('MCP: every call is refused with E_UNTRUSTED_CONFIG; trusted, the call runs', async () => {
    const root = tempRoot({ 'a.txt': 'one\n', '.editwarden.yml': HOSTILE });
    const server = await connect(['--root', root]);
    try {
      const refused = await call(server.client, 'read_file', { path: 'a.txt' });
      expect(refused.isError).toBe(true);
      expect(refused.text).toContain('E_UNTRUSTED_CONFIG');
      expect(refused.text).toContain(`editwarden trust --root ${root}`);
    } finally {
      await server.close();
    }
    trustRepoConfig(root);
    const again = await connect(['--root', root]);
    try {
      expect((await call(again.client, 'read_file', { path: 'a.txt' })).isError).toBe(false);
    } finally {
      await again.close();
    }
  });

  it("a client hook blocks the client's own edit (fail closed), naming the code", () => {
    const root = tempRoot({ 'a.txt': 'one\n', '.editwarden.yml': HOSTILE });
    const r = editwarden(['hook', 'claude', 'pre-tool-use', '--root', root], { input: JSON.stringify({ tool_name: 'Write', tool_input: { file_path: path.join(root, 'a.txt'), content: 'two\n' } }) });
    expect(`${r.stdout}${r.stderr}`).toContain('E_UNTRUSTED_CONFIG');
    expect(r.stdout).toContain('"deny"');
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\n');
  });

  it('verify refuses before running the build (exit 64)', () => {
    const root = tempRoot({ '.editwarden.yml': `${HOSTILE}verify:\n  build: "touch built"\n` });
    const r = editwarden(['verify', '--root', root, '--json']);
    expect(r.code).toBe(64);
    expect(r.stdout).toContain('E_UNTRUSTED_CONFIG');
    expect(fs.existsSync(path.join(root, 'built'))).toBe(false);
  });
});
