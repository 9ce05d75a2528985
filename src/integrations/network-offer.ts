/**
 * The line `init` offers for the network: the registry hosts of the
 * ecosystems found in the project (npm → registry.npmjs.org, pip → pypi.org
 * and files.pythonhosted.org, cargo → crates.io …) as one line of YAML the
 * person can copy into their own config. It never turns the network on:
 * the default stays `off`, and only the person's own config (or a trusted
 * file, or a flag) may loosen it (config/trust-keys.ts).
 *
 * Must never fail the command that prints it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { inspectConfig } from '../config/load.js';
import { describeNetwork } from '../config/network-setting.js';
import { userConfigFile } from '../config/trust-store.js';
import { detectProject } from '../verify/detect.js';

/** The hosts each ecosystem's installer fetches from (the public default registry only: a company mirror is the person's to name). */
const REGISTRIES: ReadonlyArray<{ name: string; found: (root: string, kinds: readonly string[], managers: readonly string[]) => boolean; hosts: readonly string[] }> = [
  { name: 'npm', found: (_r, k, m) => k.includes('node') && !m.includes('yarn'), hosts: ['registry.npmjs.org'] },
  { name: 'yarn', found: (_r, _k, m) => m.includes('yarn'), hosts: ['registry.yarnpkg.com', 'registry.npmjs.org'] },
  { name: 'pip', found: (_r, k) => k.includes('python'), hosts: ['pypi.org', 'files.pythonhosted.org'] },
  { name: 'cargo', found: (_r, k) => k.includes('cargo'), hosts: ['crates.io', 'static.crates.io', 'index.crates.io'] },
  { name: 'Go modules', found: (_r, k) => k.includes('go'), hosts: ['proxy.golang.org', 'sum.golang.org'] },
  { name: 'Maven', found: (_r, k) => k.includes('maven'), hosts: ['repo.maven.apache.org'] },
  { name: 'Gradle', found: (_r, k) => k.includes('gradle'), hosts: ['services.gradle.org', 'plugins.gradle.org', 'repo.maven.apache.org'] },
  { name: 'RubyGems', found: (r) => fs.existsSync(path.join(r, 'Gemfile')), hosts: ['rubygems.org', 'index.rubygems.org'] },
  { name: 'Composer', found: (r) => fs.existsSync(path.join(r, 'composer.json')), hosts: ['repo.packagist.org'] },
];

/** The ecosystems found at `root` and the registry hosts they need (in table order, each host once). */
export function registriesOf(root: string): { names: string[]; hosts: string[] } {
  let kinds: string[] = [];
  let managers: string[] = [];
  try {
    const d = detectProject(root);
    kinds = d.kinds;
    managers = d.projects.flatMap((p) => (p.packageManager ? [p.packageManager] : []));
  } catch {
    // Nothing detected: nothing to offer.
  }
  const found = REGISTRIES.filter((r) => r.found(root, kinds, managers));
  return { names: found.map((r) => r.name), hosts: [...new Set(found.flatMap((r) => r.hosts))] };
}

/** What init prints about the network: what is in force, and the line that allows the project's registry. */
export function networkOfferLines(root: string, configFile?: string): string[] {
  let setting: ReturnType<typeof describeNetwork>;
  try {
    setting = describeNetwork(inspectConfig(root, configFile).config.sandbox.network);
  } catch {
    return [];
  }
  const { names, hosts } = registriesOf(root);
  const line = `Network for this project's commands: ${setting} (sandbox.network).`;
  if (hosts.length === 0 || setting !== 'off') return [line];
  const yours = userConfigFile() ?? '~/.config/editwarden/config.yml';
  return [
    `${line} This looks like a ${names.join(' and ')} project: to let its commands reach ${hosts.length === 1 ? 'its registry' : 'its registries'} (and nothing else), put this line in your own config ${yours} (or add its network key to the sandbox: section there):`,
    `  sandbox: { network: [${hosts.join(', ')}] }`,
  ];
}
