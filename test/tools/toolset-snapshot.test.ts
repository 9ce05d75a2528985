/**
 * What each client and profile is offered, pinned as JSON under
 * test/fixtures/toolsets/ (gemini-cli's habit): the declarations a model or
 * MCP client receives — names, descriptions, parameter schemas, MCP
 * annotations — and the allowed_tools the run's guard reads, for three
 * configs (the default, an explicit list with an alias, an empty list that
 * allows everything). A change to any tool's declaration shows up as a diff
 * of these files; `npx vitest run test/tools/toolset-snapshot.test.ts -u`
 * rewrites them after a deliberate change.
 */
import { describe, expect, it } from 'vitest';
import { editorConfig } from '../../src/agent/editor/editor.js';
import { editorToolNames } from '../../src/agent/editor/tools.js';
import { parseConfig, type Config } from '../../src/config/config.js';
import { buildCatalog } from '../../src/mcp/catalog.js';
import { runProfile } from '../../src/runs/profile.js';
import { editFileTool } from '../../src/tools/edit-file.js';
import { exportToolSchemas } from '../../src/tools/registry.js';
import { toolsetFor } from '../../src/tools/toolset.js';

const CONFIGS: Record<string, string> = {
  default: '',
  explicit: 'constraints:\n  allowed_tools: [read_file, edit_file, apply_diff, ask_question, verify]\n',
  everything: 'constraints:\n  allowed_tools: []\n',
};

function agent(config: Config, mode: 'headless' | 'interactive', activeEdit: boolean) {
  const toolset = toolsetFor(runProfile(mode, { config }), config, { activeEdit });
  return { allowed_tools: toolset.config.constraints.allowed_tools, offered: exportToolSchemas(toolset.tools, toolset.offered) };
}

function editor(config: Config, dryRun: boolean) {
  const profile = runProfile('editor', { config, dryRun });
  const ruled = editorConfig(config, profile);
  const toolset = toolsetFor(profile, config, { own: editorToolNames() });
  return { allowed_tools: ruled.constraints.allowed_tools, on_violation: ruled.constraints.on_violation, file_tools: toolset.tools.map((t) => t.name), own: editorToolNames() };
}

function mcp(config: Config) {
  const toolset = toolsetFor(runProfile('headless', { config }), config, { client: 'mcp' });
  const offered = buildCatalog().filter((e) => toolset.offered.includes(e.name));
  return { allowed_tools: toolset.config.constraints.allowed_tools, offered: offered.map((e) => ({ name: e.name, description: e.description, inputSchema: e.inputSchema, annotations: e.annotations })) };
}

describe('what each client and profile is offered', () => {
  for (const [label, yaml] of Object.entries(CONFIGS)) {
    it(`${label} config`, async () => {
      const config = parseConfig(yaml);
      const controlled = toolsetFor(runProfile('controlled', { config }), config, { own: [editFileTool.name] });
      const snapshot = {
        headless: agent(config, 'headless', false),
        'headless-active-edit': agent(config, 'headless', true),
        interactive: agent(config, 'interactive', false),
        controlled: { allowed_tools: controlled.config.constraints.allowed_tools, offered: controlled.offered },
        editor: editor(config, false),
        'editor-dry-run': editor(config, true),
        mcp: mcp(config),
      };
      await expect(`${JSON.stringify(snapshot, null, 2)}\n`).toMatchFileSnapshot(`../fixtures/toolsets/${label}.json`);
    });
  }
});
