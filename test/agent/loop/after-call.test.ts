/**
 * The loop's one extension point, afterCall: every call the loop handles — a recorded tool call, an active-edit
 * directive, a malformed call — is shown to it, and it alone decides (besides the loop's own endings) whether the
 * run goes on. Driven through the real loop with a real runner on a temp folder; the model is an in-process script.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/config.js';
import { runAgent } from '../../../src/agent/loop.js';
import type { AfterCall, CallSeen } from '../../../src/agent/loop/after-call.js';
import type { CompleteOptions, ModelProvider, ModelRequest, ModelTurn } from '../../../src/agent/providers/types.js';
import { Transcript } from '../../../src/agent/transcript.js';
import { runProfile } from '../../../src/runs/profile.js';
import { Run } from '../../../src/runs/run.js';
import { ToolRunner } from '../../../src/tools/runner.js';
import { toolsetFor } from '../../../src/tools/toolset.js';
import { openWorkspace } from '../../../src/workspace/open.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

function project(): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-aftercall-')));
  roots.push(root);
  fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
  fs.writeFileSync(path.join(root, 'b.txt'), 'two\n');
  return root;
}

/** A model that plays its turns in order, then stops calling tools. */
function scripted(turns: Array<Partial<ModelTurn>>): ModelProvider & { requests: number } {
  const provider = {
    id: 'script:after-call',
    streaming: false,
    requests: 0,
    async complete(_request: ModelRequest, options?: CompleteOptions): Promise<ModelTurn> {
      const turn = turns[provider.requests++] ?? {};
      // The text reaches the loop as a provider streams it: active-edit directives are read from it.
      if (turn.text) options?.onEvent?.({ type: 'text', delta: turn.text });
      return { text: '', toolCalls: [], usage: { input: 10, output: 10 }, stopReason: 'tool_calls', ...turn };
    },
  };
  return provider;
}

const call = (id: string, name: string, args: unknown): { id: string; name: string; arguments: string } => ({ id, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });

async function drive(provider: ModelProvider, afterCall: AfterCall | undefined, activeEdit = false) {
  const root = project();
  const config = defaultConfig();
  const profile = runProfile('headless', { config });
  const toolset = toolsetFor(profile, config, { activeEdit });
  const { ws, transactions } = openWorkspace(root);
  const runner = ToolRunner.start({ ws, config: toolset.config, transactions, run: new Run({ profile }), tools: toolset.tools, artifacts: false });
  const transcript = new Transcript(null);
  const outcome = await runAgent({ provider, runner, task: 'Do it.', system: 'system', tools: [...toolset.offered], activeEdit, transcript, ...(afterCall ? { afterCall } : {}) });
  runner.finish();
  return { root, outcome, transcript, runner };
}

describe('afterCall: the one extension point of the loop', () => {
  it('sees every recorded call with its record, and a stop ends the run with its own ending; the calls after it in the turn are skipped', async () => {
    const seen: CallSeen[] = [];
    const provider = scripted([
      {
        toolCalls: [call('1', 'read_file', { path: 'a.txt' }), call('2', 'edit_file', { path: 'a.txt', old_text: 'one', new_text: 'uno' }), call('3', 'edit_file', { path: 'b.txt', old_text: 'two', new_text: 'dos' })],
      },
    ]);
    const { root, outcome, transcript } = await drive(provider, (s) => {
      seen.push(s);
      return s.record?.files.includes('a.txt') ? { next: 'stop', ending: { status: 'controlled', reason: 'the one edit happened', exit_code: 3 } } : { next: 'continue' };
    });
    expect(seen.map((s) => [s.call.id, s.record?.tool, s.malformed])).toEqual([
      ['1', 'read_file', null],
      ['2', 'edit_file', null],
    ]);
    expect(outcome).toMatchObject({ status: 'controlled', reason: 'the one edit happened', exitCode: 3, turns: 1 });
    expect(provider.requests).toBe(1);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('uno\n');
    expect(fs.readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('two\n');
    const skipped = transcript.events.filter((e) => (e as { type: string }).type === 'tool_result' && (e as { status?: string }).status === 'skipped');
    expect(skipped).toHaveLength(1);
    // The loop writes no end line: the run's closer does, from the outcome it settles on.
    expect(transcript.events.some((e) => (e as { type: string }).type === 'end')).toBe(false);
  });

  it('continue: the run goes on to its own ending (task_completion), with the exit code the loop gives it', async () => {
    const provider = scripted([{ toolCalls: [call('1', 'read_file', { path: 'a.txt' })] }, { toolCalls: [call('2', 'task_completion', { summary: 'read it' })] }]);
    let calls = 0;
    const { outcome } = await drive(provider, () => {
      calls++;
      return { next: 'continue' };
    });
    expect(calls).toBe(2);
    expect(outcome).toMatchObject({ status: 'completed', exitCode: 0, turns: 2 });
  });

  it('answers a malformed call: the answer is what the model reads, and the call counts as an attempt that failed, not as malformed', async () => {
    const provider = scripted([{ toolCalls: [call('1', 'edit_file', '{"path": "a.txt", old_text')] }]);
    const seen: CallSeen[] = [];
    const { outcome, transcript } = await drive(provider, (s) => {
      seen.push(s);
      return { next: 'stop', ending: { status: 'controlled', reason: 'the attempt was malformed', exit_code: 1 }, answer: 'JSON parsing error: not JSON' };
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.record).toBeNull();
    expect(seen[0]?.malformed?.code).toBe('E_MALFORMED_CALL');
    expect(outcome).toMatchObject({ status: 'controlled', exitCode: 1, malformedCalls: 0 });
    const result = transcript.events.find((e) => (e as { type: string }).type === 'tool_result') as { status: string; output: string } | undefined;
    expect(result).toMatchObject({ status: 'failed', output: 'JSON parsing error: not JSON' });
  });

  it('without an answer a malformed call stays malformed (counted, the refusal sent back)', async () => {
    const provider = scripted([{ toolCalls: [call('1', 'edit_file', '{ nope')] }]);
    const { outcome, transcript } = await drive(provider, () => ({ next: 'continue' }));
    expect(outcome.malformedCalls).toBe(1);
    expect(transcript.events.find((e) => (e as { type: string }).type === 'tool_result')).toMatchObject({ status: 'malformed' });
  });

  it('sees an active-edit directive as the edit_file call it becomes, and can stop the run on it', async () => {
    const directive = 'Replacing a.txt:\n---BEGIN---\nEdit: a.txt\naction: replace\n---START---\nuno\n---END---\n';
    const provider = scripted([{ text: directive, toolCalls: [call('1', 'read_file', { path: 'b.txt' })] }]);
    const seen: CallSeen[] = [];
    const { root, outcome } = await drive(
      provider,
      (s) => {
        seen.push(s);
        return { next: 'stop', ending: { status: 'controlled', reason: 'stopped after the directive', exit_code: 0 } };
      },
      true,
    );
    expect(seen.map((s) => s.record?.tool)).toEqual(['edit_file']);
    expect(outcome).toMatchObject({ status: 'controlled', reason: 'stopped after the directive', exitCode: 0 });
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('uno\n');
  });
});
