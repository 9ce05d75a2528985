/**
 * The toolset is read from the tools' own metadata: what needs a person is a
 * tool whose kind is interactive, what a client may treat as read-only is
 * its annotations, what allowed_tools may name is every tool and alias. The
 * config floor, which parses a file before any tool exists, keeps its own
 * copy of the names: pinned here equal to what the toolset derives.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editorToolNames } from '../../src/agent/editor/tools.js';
import { DEFAULT_ALLOWED_TOOLS, defaultConfig, KNOWN_TOOL_NAMES, parseConfig } from '../../src/config/config.js';
import { runProfile } from '../../src/runs/profile.js';
import { Run } from '../../src/runs/run.js';
import { DEFAULT_READ_LINES } from '../../src/tools/read-file.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { ToolRunner } from '../../src/tools/runner.js';
import { AGENT_TOOLS, alwaysAllowedTools, annotationsOf, defaultAllowedTools, toolAliases, toolsetFor, toolVocabulary } from '../../src/tools/toolset.js';
import { defineTool, type AnyTool } from '../../src/tools/types.js';
import { openWorkspace } from '../../src/workspace/open.js';

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-toolset-')));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe("the config floor's copy of the names", () => {
  it('KNOWN_TOOL_NAMES is exactly every tool of every client, the aliases and the Editor’s own tools', () => {
    expect([...KNOWN_TOOL_NAMES].sort()).toEqual([...new Set([...toolVocabulary(), ...editorToolNames()])].sort());
  });

  it('DEFAULT_ALLOWED_TOOLS is every agent tool that needs no person and no opt-in', () => {
    expect([...DEFAULT_ALLOWED_TOOLS]).toEqual(defaultAllowedTools());
    expect(defaultConfig().constraints.allowed_tools).toEqual(defaultAllowedTools());
  });

  it('the aliases and the always-allowed tools a parsed config adds are the metadata’s', () => {
    expect(Object.keys(toolAliases()).length).toBeGreaterThan(0);
    for (const [alias, tool] of Object.entries(toolAliases())) {
      expect(parseConfig(`constraints:\n  allowed_tools: [${alias}]\n`).constraints.allowed_tools).toEqual(expect.arrayContaining([alias, tool]));
    }
    expect([...parseConfig('constraints:\n  allowed_tools: [read_file]\n').constraints.allowed_tools].sort()).toEqual(['read_file', ...alwaysAllowedTools()].sort());
  });
});

describe('sets read from the metadata, not listed', () => {
  const person = defineTool({ name: 'page_the_oncall', kind: 'interactive', description: 'Ask the person on call.', schema: z.object({}).strict(), execute: async () => ({ ok: true, output: 'answered' }) });

  it('a tool of kind interactive is refused headless (and runs with a person), whatever its name', async () => {
    const { ws, transactions } = openWorkspace(root);
    const config = { ...defaultConfig(), constraints: { ...defaultConfig().constraints, allowed_tools: [] } };
    const headless = ToolRunner.start({ ws, config, transactions, tools: [person], run: new Run({ profile: runProfile('headless', { config }) }) });
    const refused = await headless.call({ tool: 'page_the_oncall', args: {} });
    expect(refused.ok).toBe(false);
    expect(headless.violation).toMatchObject({ type: 'ToolRestriction', constraint: 'headless' });
    const withPerson = ToolRunner.start({ ws, config, transactions, tools: [person], run: new Run({ profile: runProfile('interactive', { config }) }) });
    expect(await withPerson.call({ tool: 'page_the_oncall', args: {} })).toMatchObject({ ok: true, output: 'answered' });
  });

  it('headless offers no interactive tool; a run with a person is offered ask_question even when the list omits it', () => {
    const config = parseConfig('constraints:\n  allowed_tools: [read_file]\n');
    const headless = toolsetFor(runProfile('headless', { config }), config);
    const interactive = toolsetFor(runProfile('interactive', { config }), config);
    const interactiveKinds = new Set(AGENT_TOOLS.filter((t) => t.kind === 'interactive').map((t) => t.name));
    expect(headless.offered.some((n) => interactiveKinds.has(n))).toBe(false);
    expect(interactive.offered).toContain('ask_question');
    expect(interactive.offered).not.toContain('converse');
    expect(interactive.config.constraints.allowed_tools).toContain('ask_question');
  });

  it('active_edit is offered and allowed only with active edit on', () => {
    const config = parseConfig('constraints:\n  allowed_tools: [read_file]\n');
    const profile = runProfile('headless', { config });
    expect(toolsetFor(profile, config).offered).not.toContain('active_edit');
    const on = toolsetFor(profile, config, { activeEdit: true });
    expect(on.offered).toContain('active_edit');
    expect(on.config.constraints.allowed_tools).toContain('active_edit');
  });

  it("a profile's own tools are offered and always allowed; the Editor's file tools are the read and write kinds", () => {
    const config = parseConfig('constraints:\n  allowed_tools: [read_file, execute_command]\n');
    const editor = toolsetFor(runProfile('editor', { config }), config, { own: ['scout_codebase'] });
    expect(editor.tools.map((t) => t.name)).toEqual(['read_file']);
    expect(editor.offered).toEqual(['read_file', 'scout_codebase']);
    expect(editor.config.constraints.allowed_tools).toContain('scout_codebase');
  });

  it('annotations: the kind’s defaults, with a tool’s own overrides', () => {
    const byName = (name: string): AnyTool => [...AGENT_TOOLS].find((t) => t.name === name) as AnyTool;
    expect(annotationsOf(byName('read_file'))).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(annotationsOf(byName('edit_file'))).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(annotationsOf(byName('write_file'))).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(annotationsOf(person)).toMatchObject({ readOnlyHint: true });
  });

  it('an alias is a call name of the tool that declares it, in any registry serving that name, and is never offered', () => {
    const registry = new ToolRegistry(AGENT_TOOLS);
    for (const [alias, tool] of Object.entries(toolAliases())) {
      expect(registry.get(alias)?.name).toBe(tool);
      expect(registry.names()).not.toContain(alias);
    }
    const config = defaultConfig();
    for (const alias of Object.keys(toolAliases())) expect(toolsetFor(runProfile('headless', { config }), config).offered).not.toContain(alias);
  });
});

describe('a description lives beside its tool', () => {
  it('every tool of tools/ takes its description from src/tools/descriptions/<name>.ts', async () => {
    // execute_command's module belongs to the command runner's owners; it moves when they next touch it.
    const notYet = new Set(['execute_command']);
    const dir = path.resolve(import.meta.dirname, '../../src/tools/descriptions');
    const own = [...AGENT_TOOLS, ...toolsetFor(runProfile('headless', { config: defaultConfig() }), defaultConfig(), { client: 'mcp' }).tools].filter((t) => !t.name.endsWith('_dry_run') && !notYet.has(t.name));
    for (const tool of new Set(own)) {
      const file = path.join(dir, `${tool.name}.ts`);
      expect(fs.existsSync(file), file).toBe(true);
      const exported = Object.values((await import(file)) as Record<string, unknown>)[0];
      expect(typeof exported === 'function' ? (exported as (n: number) => string)(DEFAULT_READ_LINES) : exported, tool.name).toBe(tool.description);
    }
  });
});
