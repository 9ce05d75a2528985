import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { EditwardenError } from '../../src/errors.js';
import { chooseRoot } from '../../src/mcp/roots.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { call, connect, tempRoot } from './helpers/server.js';

const uri = (dir: string): string => pathToFileURL(dir).href;

describe('chooseRoot: the client offers roots', () => {
  const project = tempRoot({ 'sub/a.txt': 'a\n' });
  const other = tempRoot();

  it("uses the client's first usable root when no --root was given", () => {
    expect(chooseRoot({ clientRoots: [uri(project), uri(other)], cliRoot: other, cliRootExplicit: false })).toMatchObject({ root: project, source: 'client' });
  });

  it('narrows to --root when it lies inside a client root', () => {
    const sub = path.join(project, 'sub');
    expect(chooseRoot({ clientRoots: [uri(project)], cliRoot: sub, cliRootExplicit: true })).toMatchObject({ root: sub, source: 'flag' });
  });

  it('narrows to the client root when it lies inside --root', () => {
    expect(chooseRoot({ clientRoots: [uri(path.join(project, 'sub'))], cliRoot: project, cliRootExplicit: true })).toMatchObject({ root: path.join(project, 'sub'), source: 'client' });
  });

  it('refuses a --root outside every client root with E_OUTSIDE_ROOT', () => {
    expect(() => chooseRoot({ clientRoots: [uri(project)], cliRoot: other, cliRootExplicit: true })).toThrow(expect.objectContaining({ code: 'E_OUTSIDE_ROOT' }));
  });

  it("confined (HTTP): a client root outside the server's working folder is refused, one inside narrows it, a wider one is narrowed to it", () => {
    expect(() => chooseRoot({ clientRoots: [uri(other)], cliRoot: project, cliRootExplicit: false, confine: true })).toThrow(expect.objectContaining({ code: 'E_OUTSIDE_ROOT', message: expect.stringContaining("The server's root") }));
    expect(chooseRoot({ clientRoots: [uri(path.join(project, 'sub'))], cliRoot: project, cliRootExplicit: false, confine: true })).toMatchObject({ root: path.join(project, 'sub'), source: 'client' });
    expect(chooseRoot({ clientRoots: [uri(path.dirname(project))], cliRoot: project, cliRootExplicit: false, confine: true })).toMatchObject({ root: project });
    // Unconfined (stdio: the client is the person's own process), the client's root wins as before.
    expect(chooseRoot({ clientRoots: [uri(other)], cliRoot: project, cliRootExplicit: false })).toMatchObject({ root: other, source: 'client' });
  });

  it('does not take a sibling with a common prefix for a folder inside', () => {
    const evil = `${project}-evil`;
    fs.mkdirSync(evil);
    try {
      expect(() => chooseRoot({ clientRoots: [uri(project)], cliRoot: evil, cliRootExplicit: true })).toThrow(expect.objectContaining({ code: 'E_OUTSIDE_ROOT' }));
    } finally {
      fs.rmSync(evil, { recursive: true, force: true });
    }
  });

  it('ignores roots that are not local folders, and refuses when none is left rather than falling back', () => {
    const choice = chooseRoot({ clientRoots: ['https://example.com/repo', uri(path.join(project, 'missing')), uri(project)], cliRoot: other, cliRootExplicit: false });
    expect(choice.root).toBe(project);
    expect(choice.ignored).toHaveLength(2);
    expect(() => chooseRoot({ clientRoots: ['https://example.com/repo'], cliRoot: other, cliRootExplicit: true })).toThrow(expect.objectContaining({ code: 'E_OUTSIDE_ROOT' }));
  });
});

describe('chooseRoot: no client roots', () => {
  it('uses --root', () => {
    const project = tempRoot();
    expect(chooseRoot({ clientRoots: undefined, cliRoot: project, cliRootExplicit: true })).toMatchObject({ root: project, source: 'flag' });
    expect(chooseRoot({ clientRoots: [], cliRoot: project, cliRootExplicit: true })).toMatchObject({ root: project, source: 'flag' });
  });

  it('refuses the file-system root or the home folder as an implicit working folder', () => {
    expect(() => chooseRoot({ clientRoots: undefined, cliRoot: '/', cliRootExplicit: false })).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    expect(() => chooseRoot({ clientRoots: undefined, cliRoot: os.homedir(), cliRootExplicit: false })).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
  });

  it('refuses a --root that does not exist', () => {
    expect(() => chooseRoot({ clientRoots: undefined, cliRoot: '/nonexistent/ew', cliRootExplicit: true })).toThrow(expect.objectContaining({ code: 'E_NO_FILE' }));
  });

  it("refuses a missing or non-folder root with the workspace's own code, message and hint (one check)", () => {
    const file = path.join(tempRoot({ 'f.txt': 'x\n' }), 'f.txt');
    const refusal = (run: () => unknown): unknown => {
      try {
        run();
      } catch (error) {
        return (error as EditwardenError).toJSON();
      }
      throw new Error('not refused');
    };
    for (const root of ['/nonexistent/ew', file]) {
      const fromWorkspace = refusal(() => openWorkspace(root));
      expect(fromWorkspace).toMatchObject({ code: root === file ? 'E_NOT_A_FILE' : 'E_NO_FILE' });
      expect(refusal(() => chooseRoot({ clientRoots: undefined, cliRoot: root, cliRootExplicit: true }))).toEqual(fromWorkspace);
      expect(refusal(() => chooseRoot({ clientRoots: [uri(path.dirname(file))], cliRoot: root, cliRootExplicit: true }))).toEqual(fromWorkspace);
    }
  });
});

describe('editwarden mcp honours the client roots over stdio', () => {
  const opened: Array<{ close: () => Promise<void> }> = [];
  // After each test: its roots are removed when it ends, so its server stops first.
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
  });

  it("edits inside the client's root, not the folder the server was started in", async () => {
    const project = tempRoot({ 'a.txt': 'a\n' });
    const startedIn = tempRoot({ 'a.txt': 'a\n' });
    const server = await connect([], { roots: [project], cwd: startedIn });
    opened.push(server);
    const r = await call(server.client, 'edit_file', { path: 'a.txt', old_text: 'a', new_text: 'b' });
    expect(r.isError).toBe(false);
    expect(fs.readFileSync(path.join(project, 'a.txt'), 'utf8')).toBe('b\n');
    expect(fs.readFileSync(path.join(startedIn, 'a.txt'), 'utf8')).toBe('a\n');
  });

  it('refuses every call when --root lies outside the client roots', async () => {
    const project = tempRoot({ 'a.txt': 'a\n' });
    const other = tempRoot({ 'a.txt': 'a\n' });
    const server = await connect(['--root', other], { roots: [project] });
    opened.push(server);
    const r = await call(server.client, 'read_file', { path: 'a.txt' });
    expect(r.isError).toBe(true);
    expect(r.error?.code).toBe('E_OUTSIDE_ROOT');
    expect(r.error?.hint).toContain('--root');
  });

  it('follows the client when its roots change', async () => {
    const first = tempRoot({ 'a.txt': 'first\n' });
    const second = tempRoot({ 'a.txt': 'second\n' });
    const server = await connect([], { roots: [first] });
    opened.push(server);
    expect((await call(server.client, 'read_file', { path: 'a.txt' })).text).toContain('first');
    await server.setRoots([second]);
    let text = '';
    // The change arrives as a notification; the server asks for the new roots and switches.
    for (let i = 0; i < 50 && !text.includes('second'); i++) {
      text = (await call(server.client, 'read_file', { path: 'a.txt' })).text;
      if (!text.includes('second')) await new Promise((r) => setTimeout(r, 50));
    }
    expect(text).toContain('second');
  });
});
