/**
 * Every parsed config owns its objects: a default filled in by the schema is
 * made anew for each parse, never one object shared by every config of the
 * process. A long-running process (the MCP server, the warm hook server that
 * serves several projects, the Editor) holds many configs at once; with a
 * shared default, one run adding a tool to its `allowed_tools` or a path to
 * its `sandbox.writable` would have changed every other run's too.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultConfig, parseConfig } from '../../src/config/config.js';
import { DEFAULT_CONFIG } from '../../src/config/defaults.js';

/** Paths of the objects and arrays two configs have in common (the same object, not an equal one). */
function sharedObjects(a: unknown, b: unknown, at = 'config'): string[] {
  if (a === null || typeof a !== 'object' || b === null || typeof b !== 'object') return [];
  const here = a === b ? [at] : [];
  return [...here, ...Object.keys(a).flatMap((key) => sharedObjects((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${at}.${key}`))];
}

/** Adds an element to every array of a config and a key to every object: what a careless caller could do to its own copy. */
function scribble(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) scribble(item);
    value.push('scribbled');
  } else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) scribble(item);
    (value as Record<string, unknown>).scribbled = true;
  }
}

const SECTIONS = ['constraints', 'verify', 'edit', 'reports', 'checkpoints', 'search', 'scouts', 'sandbox', 'workspace'] as const;

describe('a parsed config owns its defaults', () => {
  it('two default configs share no object or array', () => {
    expect(sharedObjects(defaultConfig(), defaultConfig())).toEqual([]);
  });

  it('changing one config leaves the next default config as the defaults', () => {
    scribble(defaultConfig());
    scribble(parseConfig('constraints:\n  max_files: 3\n'));
    expect(defaultConfig()).toEqual(DEFAULT_CONFIG);
  });

  it('two parses of any config text share no object or array, whichever sections it leaves to the defaults', () => {
    fc.assert(
      fc.property(fc.subarray([...SECTIONS]), fc.subarray([...SECTIONS]), (first, second) => {
        const text = (sections: readonly string[]) => sections.map((s) => `${s}: {}\n`).join('');
        expect(sharedObjects(parseConfig(text(first)), parseConfig(text(second)))).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });
});
