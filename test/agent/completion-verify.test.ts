/**
 * Headless task_completion verifies first when a build or test command is configured or detected
 * (as the Editor does), unless verify.on_completion is false — through the real binary.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bin, cleanup, ensureBuilt, jsonl, script, tempProject } from './helpers/bin.js';
import { trustRepoConfig } from '../trust-config.js';

beforeAll(ensureBuilt);
afterEach(cleanup);

const done = { tool_calls: [{ name: 'task_completion', arguments: { summary: 'Done.', status: 'done' } }] };

describe('headless task_completion verifies first', () => {
  it('a failing build refuses the completion: the run does not end in success (the model is told, and the script runs out)', () => {
    const root = tempProject({ '.editwarden.yml': 'verify:\n  build: "node -e \\"console.error(\'src/a.js:1:1: error: broken\'); process.exit(1)\\""\n', 'src/a.js': 'x\n' });
    const r = bin(['run', '--task', 'x', '--model', script(root, [done]), '--root', root, '--json']);
    const out = JSON.parse(r.stdout);
    expect(r.code).not.toBe(0);
    expect(out.status).not.toBe('completed');
    const result = jsonl(out.transcript).find((e) => e.type === 'tool_result' && e.tool === 'task_completion');
    expect(result?.status).toBe('failed');
    expect(String(result?.output)).toMatch(/^task_completion was refused: the verification failed/);
  });

  it('a detected test command that passes lets the run complete (exit 0)', () => {
    const root = tempProject({ 'package.json': '{"name":"p","private":true,"scripts":{"test":"node -e 0"}}\n' });
    const r = bin(['run', '--task', 'x', '--model', script(root, [done]), '--root', root, '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    const result = jsonl(out.transcript).find((e) => e.type === 'tool_result' && e.tool === 'task_completion');
    expect(String(result?.output)).toContain('Verified first: ');
  });

  it('verify.on_completion: false turns it off', () => {
    const root = tempProject({ '.editwarden.yml': 'verify:\n  build: "node -e process.exit(1)"\n  on_completion: false\n' });
    // Switching a guard off loosens it: the person trusts the file.
    trustRepoConfig(root);
    const r = bin(['run', '--task', 'x', '--model', script(root, [done]), '--root', root, '--json']);
    expect(r.code).toBe(0);
  });
});
