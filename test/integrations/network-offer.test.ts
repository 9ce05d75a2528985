/** `init` offers the detected ecosystem's registry as one line the person copies; it never turns the network on. */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.js';
import { loadConfig } from '../../src/config/load.js';
import { registriesOf } from '../../src/integrations/network-offer.js';
import { editwardenHere } from './cli-in-process.js';
import { cleanup, project } from './helpers.js';

afterAll(cleanup);

describe('the registry line init offers', () => {
  it('names the hosts of each ecosystem found', () => {
    expect(registriesOf(project({ 'package.json': '{"name":"a"}\n' })).hosts).toEqual(['registry.npmjs.org']);
    expect(registriesOf(project({ 'package.json': '{"name":"a"}\n', 'yarn.lock': '' })).hosts).toEqual(['registry.yarnpkg.com', 'registry.npmjs.org']);
    expect(registriesOf(project({ 'pyproject.toml': '[project]\nname = "a"\n' })).hosts).toEqual(['pypi.org', 'files.pythonhosted.org']);
    expect(registriesOf(project({ 'Cargo.toml': '[package]\nname = "a"\n' })).hosts).toEqual(['crates.io', 'static.crates.io', 'index.crates.io']);
    expect(registriesOf(project({ 'README.md': 'hi\n' })).hosts).toEqual([]);
  });

  it('init claude prints the line, the line is a valid config, and the network stays off', async () => {
    const root = project({ 'package.json': '{"name":"app","version":"1.0.0"}\n' });
    const init = await editwardenHere(['init', 'claude', '--root', root]);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain("Network for this project's commands: off (sandbox.network).");
    const line = init.stdout.split('\n').find((l) => l.trim().startsWith('sandbox: { network:'));
    expect(line?.trim()).toBe('sandbox: { network: [registry.npmjs.org] }');
    expect(parseConfig(YAML.stringify(YAML.parse(line as string))).sandbox.network).toEqual(['registry.npmjs.org']);
    // Offered, not applied: the project's config and the person's own are as they were.
    expect(loadConfig(root).sandbox.network).toBe('off');
    expect(fs.existsSync(path.join(root, '.editwarden.yml'))).toBe(false);
  });
});
