/**
 * What doctor says of Codex's trust (integrations/codex-trust.ts), on the
 * records Codex keeps: the project's trust level, and a trusted_hash per
 * hook under Codex's key `<file>:<event>:<group>:<hook>` — the real keys
 * are pinned against Codex's own app-server in codex-sandbox.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codexTrustCheck } from '../../src/integrations/codex-trust.js';
import { editwardenHere } from './cli-in-process.js';
import { cleanup, project, tempDir } from './helpers.js';

afterAll(cleanup);

/** A project init protects for Codex (setup: the built CLI in this process, cli-in-process.ts) and Codex's own records. */
async function setup(userConfig: (root: string) => string): Promise<{ root: string; env: Record<string, string> }> {
  const root = project({ 'a.txt': 'a\n' });
  expect((await editwardenHere(['init', 'codex', '--root', root])).code).toBe(0);
  const home = tempDir('ew-codexhome-');
  fs.writeFileSync(path.join(home, 'config.toml'), userConfig(root));
  return { root, env: { CODEX_HOME: home } };
}

const trusted = (root: string): string => `[projects."${root}"]\ntrust_level = "trusted"\n`;
const hookState = (root: string, event: string, extra = ''): string => `[hooks.state."${root}/.codex/config.toml:${event}:0:0"]\ntrusted_hash = "sha256:${'a'.repeat(64)}"\n${extra}`;

describe("doctor reads Codex's own trust records", () => {
  it('an untrusted project: none of the hooks load', async () => {
    const { root, env } = await setup(() => '');
    const c = codexTrustCheck(root, env);
    expect(c.ok).toBe(false);
    expect(c.detail).toContain('does not trust this project');
    expect(c.fix).toContain('/hooks');
  });

  it('a trusted project whose parent folder is trusted counts as trusted', async () => {
    const { root, env } = await setup((r) => `${trusted(path.dirname(r))}${hookState(r, 'pre_tool_use')}${hookState(r, 'post_tool_use')}`);
    expect(codexTrustCheck(root, env).ok).toBe(true);
  });

  it('one hook without a trust record, or turned off, is named', async () => {
    const one = await setup((r) => `${trusted(r)}${hookState(r, 'pre_tool_use')}`);
    expect(codexTrustCheck(one.root, one.env)).toMatchObject({ ok: false, detail: expect.stringContaining('1 of editwarden') });
    expect(codexTrustCheck(one.root, one.env).detail).toContain('post_tool_use:0:0');
    const off = await setup((r) => `${trusted(r)}${hookState(r, 'pre_tool_use', 'enabled = false\n')}${hookState(r, 'post_tool_use')}`);
    expect(codexTrustCheck(off.root, off.env).detail).toContain('pre_tool_use:0:0');
  });

  it('the MCP server without the hooks is named; no setup at all is fine', async () => {
    const { root, env } = await setup((r) => trusted(r));
    const file = path.join(root, '.codex', 'config.toml');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/\[\[hooks\.[\s\S]*?(?=\n\[permissions|$)/, ''));
    expect(codexTrustCheck(root, env)).toMatchObject({ ok: false, detail: expect.stringContaining('holds none of its hooks') });
    fs.rmSync(path.join(root, '.codex'), { recursive: true });
    expect(codexTrustCheck(root, env).ok).toBe(true);
  });
});
