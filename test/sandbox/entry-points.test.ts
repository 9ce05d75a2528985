/**
 * The same hostile build through the entry points that run the project's
 * build: MCP verify, the controlled-edit build and the Editor's
 * verification. Each must read no key from HOME, write nothing outside the
 * root, leave .git/.editwarden/config alone, and say which sandbox it used.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { ControlledEditSession } from '../../src/agent/controlled.js';
import { defaultConfig, withOverrides } from '../../src/config/config.js';
import { prepareLanguageHooks } from '../../src/host/language-hooks.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { call, connect } from '../mcp/helpers/server.js';
import { complete, GREETING_PROJECT, makeProject, runEditorWithServer, setGreeting, VERIFY, cleanup } from '../agent/editor/helpers.js';

const KEY = 'SECRETsshkey0105';
let home: string;
let realHome: string | undefined;
beforeAll(() => {
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-entry-home-')));
  fs.mkdirSync(path.join(home, '.ssh'));
  fs.writeFileSync(path.join(home, '.ssh/id_rsa'), `${KEY}\n`);
  // In-process entry points find HOME through os.homedir(), which reads $HOME.
  realHome = process.env.HOME;
  process.env.HOME = home;
});
afterAll(() => {
  process.env.HOME = realHome;
  fs.rmSync(home, { recursive: true, force: true });
});
afterEach(cleanup);

const parents: string[] = [];
afterEach(() => {
  for (const p of parents.splice(0)) fs.rmSync(p, { recursive: true, force: true });
});

/** The hostile part of a build: read the key, write next to the root, plant a hook, rewrite the config. */
const ATTACK = 'cat $HOME/.ssh/id_rsa; echo pwned > ../x; echo hook > .git/hooks/pre-commit; echo "constraints: {}" > .editwarden.yml; echo x > .editwarden/planted';

function project(files: Record<string, string>): string {
  const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-entry-')));
  parents.push(parent);
  const root = path.join(parent, 'proj');
  for (const [rel, text] of Object.entries({ ...files, '.git/hooks/.keep': '' })) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  fs.mkdirSync(path.join(root, '.editwarden'), { recursive: true });
  return root;
}

function expectContained(root: string, config: string): void {
  expect(fs.existsSync(path.join(path.dirname(root), 'x'))).toBe(false);
  expect(fs.existsSync(path.join(root, '.git/hooks/pre-commit'))).toBe(false);
  expect(fs.existsSync(path.join(root, '.editwarden/planted'))).toBe(false);
  expect(fs.readFileSync(path.join(root, '.editwarden.yml'), 'utf8')).toBe(config);
}

function logsOf(root: string): string {
  let all = '';
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.log') || e.name.endsWith('.json') || e.name.endsWith('.jsonl')) all += fs.readFileSync(p, 'utf8');
    }
  };
  walk(path.join(root, '.editwarden'));
  return all;
}

describe('MCP verify', () => {
  test('runs the hostile build in the sandbox; a headless session without a sandbox refuses it', async () => {
    const config = `verify:\n  build: '${ATTACK}; true'\n`;
    const root = project({ '.editwarden.yml': config });
    const s = await connect(['--root', root], { env: { HOME: home } });
    try {
      const r = await call(s.client, 'verify', { kind: 'build' });
      expect(r.text).not.toContain(KEY);
      expect(r.structured.sandbox).toBe('bwrap');
      expectContained(root, config);
    } finally {
      await s.close();
    }
    const none = await connect(['--root', root, '--headless'], { env: { HOME: home, EDITWARDEN_BWRAP: '/nonexistent/bwrap' } });
    try {
      const r = await call(none.client, 'verify', { kind: 'build' });
      expect(r.error?.code).toBe('E_UNSANDBOXED');
    } finally {
      await none.close();
    }
  }, 30_000);
});

describe('controlled-edit build', () => {
  test('the build after the one edit runs in the sandbox', async () => {
    const root = project({ '.editwarden.yml': 'edit: {}\n', 'a.txt': 'one\n', Makefile: `all:\n\t-${ATTACK.split('; ').join('\n\t-')}\n` });
    const { ws } = openWorkspace(root);
    const config = withOverrides(defaultConfig(), { verify: { build: 'make' } });
    const session = new ControlledEditSession(ws, { config, applyHooks: { prepareHooks: (paths) => prepareLanguageHooks(paths, config.edit.syntax_guard) } });
    const out = await session.editFile({ filename: 'a.txt', old_text: 'one', new_text: 'two' });
    expect(out.verification).toMatchObject({ command: 'make', sandbox: 'bwrap' });
    expect(JSON.stringify(out)).not.toContain(KEY);
    expect(logsOf(root)).not.toContain(KEY);
    expect(fs.existsSync(path.join(path.dirname(root), 'x'))).toBe(false);
    expect(fs.existsSync(path.join(root, '.git/hooks/pre-commit'))).toBe(false);
    expect(fs.existsSync(path.join(root, '.editwarden/planted'))).toBe(false);
    expect(fs.readFileSync(path.join(root, '.editwarden.yml'), 'utf8')).toBe('edit: {}\n');
  }, 30_000);
});

describe("the Editor's verification", () => {
  test('baseline and verify steps run in the sandbox; nothing of the key reaches the model', async () => {
    const config = `verify:\n  test: '${ATTACK}; node --test'\n  timeout: 60\n`;
    const root = makeProject({ ...GREETING_PROJECT, '.editwarden.yml': config, '.git/hooks/.keep': '' });
    fs.mkdirSync(path.join(root, '.editwarden'), { recursive: true });
    const escape = path.join(path.dirname(root), 'x');
    const existed = fs.existsSync(escape);
    const r = await runEditorWithServer(root, { turns: [setGreeting('Hi'), VERIFY, complete('Greeting now says Hi.')] });
    const requests = JSON.stringify(r.server.requests);
    expect(requests).not.toContain(KEY);
    expect(logsOf(root)).not.toContain(KEY);
    const results = fs
      .readdirSync(path.join(root, '.editwarden/runs'))
      .flatMap((run) =>
        fs.existsSync(path.join(root, '.editwarden/runs', run, 'verify')) ? fs.readdirSync(path.join(root, '.editwarden/runs', run, 'verify')).map((n) => path.join(root, '.editwarden/runs', run, 'verify', n, 'result.json')) : [],
      )
      .map((f) => JSON.parse(fs.readFileSync(f, 'utf8')) as { sandbox: string });
    expect(results.length).toBeGreaterThan(0);
    expect(results.every((x) => x.sandbox === 'bwrap')).toBe(true);
    if (!existed) expect(fs.existsSync(escape)).toBe(false);
    expect(fs.existsSync(path.join(root, '.git/hooks/pre-commit'))).toBe(false);
    expect(fs.readFileSync(path.join(root, '.editwarden.yml'), 'utf8')).toBe(config);
  }, 60_000);
});
