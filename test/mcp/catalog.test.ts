import { describe, expect, it } from 'vitest';
import { defaultConfig, type Config } from '../../src/config/config.js';
import { buildCatalog } from '../../src/mcp/catalog.js';
import { runProfile } from '../../src/runs/profile.js';
import { toolsetFor } from '../../src/tools/toolset.js';

const withTools = (tools: string[]) => {
  const c = defaultConfig();
  return { ...c, constraints: { ...c.constraints, allowed_tools: tools } };
};
const mcp = (config: Config) => toolsetFor(runProfile('headless', { config }), config, { client: 'mcp' });

describe('which tools the MCP runner allows', () => {
  it('a config that keeps the default allowed_tools also allows the MCP-only tools and the dry runs', () => {
    const allowed = mcp(defaultConfig()).config.constraints.allowed_tools;
    expect(allowed).toEqual(expect.arrayContaining(['checkpoint_create', 'checkpoint_list', 'checkpoint_restore', 'verify', 'detect', 'edit_file_dry_run', 'write_file_dry_run', 'apply_patch_dry_run']));
  });

  it('an explicit list is taken as written, plus the dry run of each write tool it allows', () => {
    const allowed = mcp(withTools(['read_file', 'edit_file'])).config.constraints.allowed_tools;
    expect([...allowed].sort()).toEqual(['edit_file', 'edit_file_dry_run', 'read_file']);
  });

  it('an empty list (everything allowed) stays empty', () => {
    expect(mcp(withTools([])).config.constraints.allowed_tools).toEqual([]);
  });

  it('offers only what is allowed, never a dry-run twin', () => {
    expect(mcp(withTools(['read_file', 'verify'])).offered).toEqual(['read_file', 'verify']);
    expect(mcp(withTools([])).offered).toEqual(buildCatalog().map((e) => e.name));
  });
});

describe('routing an MCP call to a runner call', () => {
  const catalog = buildCatalog();
  const entry = (name: string) => catalog.find((e) => e.name === name)!;

  it('maps offset/limit onto start_line/end_line', () => {
    expect(entry('read_file').route({ path: 'a', offset: 10, limit: 5 })).toMatchObject({ ok: true, tool: 'read_file', args: { path: 'a', start_line: 10, end_line: 14 } });
    expect(entry('read_file').route({ path: 'a', limit: 3 })).toMatchObject({ ok: true, args: { end_line: 3 } });
  });

  it('refuses offset with a different start_line, and limit with end_line', () => {
    expect(entry('read_file').route({ path: 'a', offset: 2, start_line: 3 })).toMatchObject({ ok: false, error: { code: 'E_PARSE' } });
    expect(entry('read_file').route({ path: 'a', limit: 2, end_line: 3 })).toMatchObject({ ok: false, error: { code: 'E_PARSE' } });
  });

  it('sends dry_run to the dry-run twin and drops the field', () => {
    const routed = entry('edit_file').route({ path: 'a', old_text: 'x', new_text: 'y', dry_run: true });
    expect(routed).toMatchObject({ ok: true, tool: 'edit_file_dry_run' });
    expect(routed.ok && 'dry_run' in routed.args).toBe(false);
    expect(entry('edit_file').route({ path: 'a', dry_run: false })).toMatchObject({ ok: true, tool: 'edit_file' });
  });

  it('every input schema is a JSON Schema object', () => {
    for (const e of catalog) expect(e.inputSchema).toMatchObject({ type: 'object' });
  });
});
