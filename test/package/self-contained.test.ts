/**
 * A fresh clone needs nothing beside it: no file the tests, sources,
 * benchmarks, package manifest or CI read refers to the folder that sits
 * beside the repository on the developers' machines. The conformance data
 * that once lived there is vendored in test/fixtures/conformance/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = path.resolve(__dirname, '../..');
// Spelled in two parts so that this file does not match itself.
const OUTSIDE = '..' + '/shared';

function filesUnder(rel: string): string[] {
  const abs = path.join(REPO, rel);
  if (!fs.existsSync(abs)) return [];
  if (fs.statSync(abs).isFile()) return [rel];
  const out: string[] = [];
  for (const entry of fs.readdirSync(abs, { withFileTypes: true })) {
    const child = path.join(rel, entry.name);
    // Vendored upstream data is data, not a reference.
    if (child === path.join('test', 'fixtures', 'conformance')) continue;
    if (entry.name === 'node_modules' || entry.name === 'results') continue;
    if (entry.isDirectory()) out.push(...filesUnder(child));
    else if (entry.isFile()) out.push(child);
  }
  return out;
}

describe('the repository is self-contained', () => {
  it(`no file in test/, src/, bench/, .ci/ or package.json refers to ${OUTSIDE}`, () => {
    const offenders = ['test', 'src', 'bench', '.ci', 'package.json', 'vitest.config.ts'].flatMap(filesUnder).filter((rel) => fs.readFileSync(path.join(REPO, rel), 'utf8').includes(OUTSIDE));
    expect(offenders).toEqual([]);
  });

  it('the vendored conformance data carries each upstream licence and source note', () => {
    for (const upstream of ['go-gitdiff', 'python-patch']) {
      const dir = path.join(REPO, 'test/fixtures/conformance', upstream);
      expect(fs.readFileSync(path.join(dir, 'LICENSE-UPSTREAM.txt'), 'utf8')).toMatch(/Permission is hereby granted/);
      expect(fs.readFileSync(path.join(dir, 'SOURCE.txt'), 'utf8')).toMatch(/Repository : https:\/\/github\.com\//);
    }
  });
});
