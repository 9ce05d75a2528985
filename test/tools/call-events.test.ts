/**
 * Which runs record events, and what a call adds: a dry run (nothing
 * reached the disk) and a runner that keeps no artifacts record none unless
 * they name a route; a successful read adds nothing; a refused write adds a
 * refusal with the path it asked for.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config/defaults.js';
import { CallEventLog, callEvents } from '../../src/tools/call-events.js';
import type { CallRecord, ToolRunnerOptions } from '../../src/tools/calls.js';
import { runProfile } from '../../src/runs/profile.js';

const config = { constraints: DEFAULT_CONFIG.constraints } as unknown as ToolRunnerOptions['config'];
const options = (extra: Partial<ToolRunnerOptions>): ToolRunnerOptions => ({ ws: { root: '/r', stateDir: '/r/.editwarden' } as ToolRunnerOptions['ws'], config, ...extra });
const headless = runProfile('headless', { config: { constraints: DEFAULT_CONFIG.constraints } as never });

describe('which runs record events', () => {
  it('a dry run records none (its writes never reached the disk)', () => {
    expect(CallEventLog.for(options({}), runProfile('editor', { config: { constraints: DEFAULT_CONFIG.constraints } as never, dryRun: true }), 'id', null, undefined)).toBeNull();
  });
  it('a runner without artifacts records none, unless it names its route; events: false records none', () => {
    expect(CallEventLog.for(options({ artifacts: false }), headless, 'id', null, undefined)).toBeNull();
    expect(CallEventLog.for(options({ artifacts: false, events: { via: 'mcp' } }), headless, 'id', null, undefined)).not.toBeNull();
    expect(CallEventLog.for(options({ events: false }), headless, 'id', null, undefined)).toBeNull();
    expect(CallEventLog.for(options({}), headless, 'id', null, undefined)).not.toBeNull();
  });
});

describe('what one call adds', () => {
  const base: CallRecord = { index: 0, tool: 'read_file', status: 'ok', ok: true, output: '', duration_ms: 1, files: [], lines_added: 0, lines_removed: 0, tokens: 0 };
  const ctx = { route: { via: 'headless', run: 'r' }, args: { path: 'a.txt' }, checkpoint: null, runFolder: null };
  it('a successful read adds nothing', () => {
    expect(callEvents(base, { ...ctx, kind: 'read' })).toEqual([]);
  });
  it('a refused edit adds a refusal naming the path it asked for', () => {
    const refused = { ...base, tool: 'edit_file', ok: false, status: 'failed' as const, error: { code: 'E_NOT_FOUND' as const, message: 'm', hint: 'h' } };
    expect(callEvents(refused, { ...ctx, kind: 'write' })).toEqual([{ route: ctx.route, kind: 'refusal', tool: 'edit_file', paths: ['a.txt'], code: 'E_NOT_FOUND', message: 'm', hint: 'h' }]);
  });
});
