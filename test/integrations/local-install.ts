/**
 * A project with editwarden installed the documented project-local way (a
 * devDependency): `node_modules/editwarden` a copy of this build (bin/,
 * dist/, grammars/, package.json), `node_modules/.bin/editwarden` the link
 * npm makes, and the two run-time packages the CLI loads from node_modules
 * (links to this repository's copies, read-only to every sandbox since
 * they lie outside the project). The person's data folder (where `init`
 * records the install) is the test's own.
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

export function localInstallProject(files: Record<string, string>): LocalInstallProject {
  const root = project(files);
  const pkg = path.join(root, 'node_modules', 'editwarden');
  fs.mkdirSync(pkg, { recursive: true });
  for (const part of ['bin', 'dist', 'grammars', 'package.json']) fs.cpSync(path.join(REPO, part), path.join(pkg, part), { recursive: true });
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
