/**
 * Controlled mode plans its one edit once: the runner's prepare makes the
 * change pipeline's plan (shown to the gate), and the session commits that
 * same plan — it does not throw it away and plan again. Counted through the
 * language hooks, which the pipeline prepares once per plan: a second plan
 * would prepare them a second time.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareLanguageHooks } from '../../src/host/language-hooks.js';
import { defaultConfig } from '../../src/config/config.js';
import { tempDir } from '../temp-dirs.js';
import { runWithServer } from './helpers/project.js';

const build = `${JSON.stringify(process.execPath)} check.mjs`;

function project(): string {
  const dir = tempDir('ew-ctl-once-');
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src/greeting.mjs'), 'export function greeting(name) {\n  return `Hello, ${name}!`;\n}\n');
  fs.writeFileSync(path.join(dir, 'check.mjs'), "const m = await import('./src/greeting.mjs');\nif (typeof m.greeting('x') !== 'string') process.exit(1);\n");
  return dir;
}

describe('controlled mode plans its edit exactly once', () => {
  it('one plan for the gate and the commit: the language hooks are prepared once, the edit is applied and built', async () => {
    const root = project();
    const planned: string[][] = [];
    const syntax = defaultConfig().edit.syntax_guard;
    const r = await runWithServer(
      root,
      { turns: [{ text: 'Greeting changed.', tool_calls: [{ name: 'edit_file', arguments: { filename: 'src/greeting.mjs', old_text: 'Hello', new_text: 'Hi' } }] }] },
      {
        session: { mode: 'controlled', build: { command: build } },
        applyHooks: {
          prepareHooks: (paths) => {
            planned.push(paths);
            return prepareLanguageHooks(paths, syntax);
          },
        },
      },
    );
    expect(r.outcome.controlled?.message).toBe('SUCCESS: Code modified and build passed.');
    expect(fs.readFileSync(path.join(root, 'src/greeting.mjs'), 'utf8')).toContain('Hi, ${name}!');
    expect(planned).toEqual([['src/greeting.mjs']]);
  });

  it('a refused plan is the session’s refusal, still planned once', async () => {
    const root = project();
    let plans = 0;
    const r = await runWithServer(
      root,
      { turns: [{ text: 'Trying.', tool_calls: [{ name: 'edit_file', arguments: { filename: 'src/greeting.mjs', old_text: 'no such text', new_text: 'x' } }] }, { text: 'done' }] },
      {
        session: { mode: 'controlled', build: { command: build } },
        applyHooks: {
          prepareHooks: async () => {
            plans++;
            return {};
          },
        },
      },
    );
    expect(r.outcome.controlled?.error?.code).toBe('E_NOT_FOUND');
    expect(plans).toBe(1);
  });
});
