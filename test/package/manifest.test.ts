/**
 * What the npm and MCP registries read: package.json and server.json agree
 * (the registry proves ownership through mcpName), the licence file matches
 * the declared licence, and `npm pack` builds before packing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = path.resolve(__dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as Record<string, unknown> & {
  name: string;
  version: string;
  mcpName: string;
  license: string;
  files: string[];
  scripts: Record<string, string>;
  engines: { node: string };
};
const server = JSON.parse(fs.readFileSync(path.join(REPO, 'server.json'), 'utf8')) as {
  $schema: string;
  name: string;
  description: string;
  version: string;
  packages: Array<{ registryType: string; identifier: string; version: string; transport: { type: string }; packageArguments?: Array<{ type: string; value?: string }> }>;
};

describe('package.json and server.json', () => {
  it('server.json names the npm package, its version, and the mcpName that proves ownership', () => {
    expect(server.$schema).toMatch(/^https:\/\/static\.modelcontextprotocol\.io\/schemas\/[\d-]+\/server\.schema\.json$/);
    expect(server.name).toBe(pkg.mcpName);
    expect(server.name).toMatch(/^io\.github\.[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/);
    expect(server.version).toBe(pkg.version);
    expect(server.description.length).toBeLessThanOrEqual(100);
    expect(server.packages).toEqual([expect.objectContaining({ registryType: 'npm', identifier: pkg.name, version: pkg.version, transport: { type: 'stdio' }, packageArguments: [{ type: 'positional', value: 'mcp' }] })]);
  });

  it('declares what a registry page shows, and ships the licence it names', () => {
    for (const key of ['description', 'keywords', 'homepage', 'repository', 'bugs', 'engines']) expect(pkg[key], key).toBeDefined();
    expect(pkg.license).toBe('MIT');
    expect(fs.readFileSync(path.join(REPO, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
    expect(pkg.files).toEqual(expect.arrayContaining(['bin', 'dist', 'samples', 'server.json', '!dist/*.tsbuildinfo']));
  });

  it('npm pack builds dist/ first, and the build ships no source maps', () => {
    expect(pkg.scripts.prepack).toBe('npm run build');
    expect(pkg.scripts.build).toContain('tsconfig.build.json');
    const build = fs.readFileSync(path.join(REPO, 'tsconfig.build.json'), 'utf8');
    expect(build).toMatch(/"sourceMap": false/);
    expect(build).toMatch(/"declarationMap": false/);
  });
});
