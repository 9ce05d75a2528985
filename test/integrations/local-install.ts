/**
 * A project with editwarden installed the documented project-local way (a
 * devDependency): `node_modules/editwarden` a copy of this build (bin/,
 * dist/, grammars/, package.json), `node_modules/.bin/editwarden` the link
 * npm makes, and the two run-time packages the CLI loads from node_modules
 * (links to this repository's copies, read-only to every sandbox since
 * they lie outside the project). The person's data folder (where `init`
 * records the install) is the test's own.
 *
 * The build is copied once per test file (a template, ~960 files: ~0.7 s of
 * CPU per copy) and each project's install is made of hard links to it, but
 * for the files a test writes in place (COPIED), which are copies of their
 * own: an in-place write there (a tamper, or an attack the sandbox fails to
 * stop) never reaches another project's install or this repository's build.
 * A link is the same bytes, mode and kind as a copy: the digest `init`
 * records and the launcher checks is the same.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, project, tempDir } from './helpers.js';

const REPO = path.resolve(path.dirname(BIN), '..');

export interface LocalInstallProject {
  root: string;
  /** The person's environment for `init` and the client: HOME and XDG_DATA_HOME of their own, outside the project. */
  env: { HOME: string; XDG_DATA_HOME: string; XDG_CONFIG_HOME: string };
  /** Runs the project-local editwarden (as `npx editwarden` would) with `args` as the person. */
  person(args: string[]): { code: number | null; stdout: string; stderr: string };
}

/** The parts of the build the package holds. */
const PARTS = ['bin', 'dist', 'grammars', 'package.json'];
/** What tests write in place (guard-install.test.ts, guard-tamper-clients.test.ts): copied into each install, never linked. */
const COPIED = new Set(['bin', 'package.json', 'dist/hook-client']);

let template: string | undefined;

/** This file's copy of the build (remade after cleanup() removed the last file's). */
function buildTemplate(): string {
  if (template !== undefined && fs.existsSync(template)) return template;
  const dir = tempDir('ew-install-template-');
  for (const part of PARTS) fs.cpSync(path.join(REPO, part), path.join(dir, part), { recursive: true });
  template = dir;
  return dir;
}

/** `to` as `from` in the template: folders made, files hard-linked, the COPIED parts copied. */
function linkTree(from: string, to: string, rel: string): void {
  if (COPIED.has(rel)) {
    fs.cpSync(from, to, { recursive: true });
    return;
  }
  if (!fs.lstatSync(from).isDirectory()) {
    fs.linkSync(from, to);
    return;
  }
  fs.mkdirSync(to);
  for (const name of fs.readdirSync(from)) linkTree(path.join(from, name), path.join(to, name), `${rel}/${name}`);
}

export function localInstallProject(files: Record<string, string>): LocalInstallProject {
  const root = project(files);
  const pkg = path.join(root, 'node_modules', 'editwarden');
  fs.mkdirSync(pkg, { recursive: true });
  const source = buildTemplate();
  for (const part of PARTS) linkTree(path.join(source, part), path.join(pkg, part), part);
  fs.mkdirSync(path.join(root, 'node_modules', '.bin'));
  fs.symlinkSync('../editwarden/bin/editwarden', path.join(root, 'node_modules', '.bin', 'editwarden'));
  for (const name of ['web-tree-sitter', 'tree-sitter-wasms']) fs.symlinkSync(path.join(REPO, 'node_modules', name), path.join(root, 'node_modules', name));
  fs.writeFileSync(path.join(root, '.gitignore'), 'node_modules/\n');
  const home = tempDir('ew-person-');
  const env = { HOME: home, XDG_DATA_HOME: path.join(home, '.local', 'share'), XDG_CONFIG_HOME: path.join(home, '.config') };
  const person = (args: string[]) => {
    const r = spawnSync(process.execPath, [path.join(root, 'node_modules', '.bin', 'editwarden'), ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, ...env, EDITWARDEN_HOOK_SERVER: 'off' }, timeout: 60_000 });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  return { root, env, person };
}
