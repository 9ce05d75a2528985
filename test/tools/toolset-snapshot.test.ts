import { describe, expect, it } from 'vitest';
import { parseConfig, type Config } from '../../src/config/config.js';
import { BUILTIN_TOOLS, exportToolSchemas } from '../../src/tools/registry.js';
import { configForMode, offeredTools as agentOffered } from '../../src/agent/loop/session.js';
import { editorConfig } from '../../src/agent/editor/editor.js';
import { EDITOR_TOOL_NAMES } from '../../src/agent/editor/tools.js';
import { buildCatalog, mcpConfig, offeredTools as mcpOffered } from '../../src/mcp/catalog.js';

const CONFIGS: Record<string, string> = {
  default: '',
  explicit: 'constraints:\n  allowed_tools: [read_file, edit_file, apply_diff, ask_question, verify]\n',
  everything: 'constraints:\n  allowed_tools: []\n',
};

function agent(config: Config, mode: 'headless' | 'interactive', activeEdit: boolean) {
  let c = configForMode(config, mode);
  if (activeEdit && c.constraints.allowed_tools.length > 0 && !c.constraints.allowed_tools.includes('active_edit')) c = { ...c, constraints: { ...c.constraints, allowed_tools: [...c.constraints.allowed_tools, 'active_edit'] } };
  const names = agentOffered(c, mode, activeEdit);
  return { allowed_tools: c.constraints.allowed_tools, offered: exportToolSchemas(BUILTIN_TOOLS, names) };
}

describe('what each client and profile is offered', () => {
  for (const [label, yaml] of Object.entries(CONFIGS)) {
    it(`${label} config`, async () => {
      const config = parseConfig(yaml);
      const FILE = ['read_file', 'list_files', 'search_files', 'edit_file', 'write_file', 'apply_patch'];
      const ed = (dry: boolean) => {
        const c = editorConfig(config, dry);
        const allowed = c.constraints.allowed_tools;
        return { allowed_tools: allowed, on_violation: c.constraints.on_violation, file_tools: BUILTIN_TOOLS.filter((t) => FILE.includes(t.name) && (allowed.length === 0 || allowed.includes(t.name))).map((t) => t.name), own: [...EDITOR_TOOL_NAMES] };
      };
      const mc = mcpConfig(config);
      const snapshot = {
        headless: agent(config, 'headless', false),
        'headless-active-edit': agent(config, 'headless', true),
        interactive: agent(config, 'interactive', false),
        controlled: { allowed_tools: configForMode(config, 'controlled' as never).constraints.allowed_tools, offered: agentOffered(config, 'controlled', false) },
        editor: ed(false),
        'editor-dry-run': ed(true),
        mcp: { allowed_tools: mc.constraints.allowed_tools, offered: mcpOffered(buildCatalog(), mc).map((e) => ({ name: e.name, description: e.description, inputSchema: e.inputSchema, annotations: e.annotations })) },
      };
      await expect(`${JSON.stringify(snapshot, null, 2)}\n`).toMatchFileSnapshot(`../fixtures/toolsets/${label}.json`);
    });
  }
});
