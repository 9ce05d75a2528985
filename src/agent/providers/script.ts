/**
 * Scripts: the model turns a replay provider plays and the scripted server
 * answers with, one per model request, in order. A script is a JSON file
 * `{"turns": [...]}` or a recorded run's transcript.jsonl (its `assistant`
 * lines), so any real run can be replayed. Tests may also answer with a
 * function of the request. Reading only; nothing here talks to a network.
 */
import fs from 'node:fs';
import { AgentError, AgentErrorCode } from './errors.js';

export interface ScriptedToolCall {
  name: string;
  /** An object, or raw text (to script a malformed call). */
  arguments: string | Record<string, unknown>;
  id?: string;
}

export interface ScriptedTurn {
  text?: string;
  tool_calls?: ScriptedToolCall[];
  /** Reported usage; estimated from the request and reply sizes when absent. */
  usage?: { input: number; output: number };
  /** Answer this request with an error instead (HTTP status for the server). */
  error?: { status: number; message: string };
  /** Pause this long (ms) after the first streamed piece: lets tests interrupt a turn in flight. */
  delay_ms?: number;
}

export interface Script {
  turns: ScriptedTurn[];
}

/** What a dynamic script sees of a request. */
export interface ScriptRequest {
  protocol: 'openai' | 'anthropic' | 'gemini' | 'replay';
  /** 0-based index of this model request. */
  index: number;
  body: unknown;
}

export type ScriptSource = Script | ((request: ScriptRequest) => ScriptedTurn | undefined);

export function turnFor(source: ScriptSource, request: ScriptRequest): ScriptedTurn | undefined {
  return typeof source === 'function' ? source(request) : source.turns[request.index];
}

export function argumentsText(call: ScriptedToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

function invalid(file: string, why: string): AgentError {
  return new AgentError({
    code: AgentErrorCode.MODEL_SPEC,
    message: `${file} is not a script: ${why}.`,
    hint: 'A script is {"turns": [{"text"?, "tool_calls"?: [{"name", "arguments"}], "usage"?}]} or a run\'s transcript.jsonl.',
  });
}

function checkTurn(file: string, turn: unknown, i: number): ScriptedTurn {
  if (typeof turn !== 'object' || turn === null || Array.isArray(turn)) throw invalid(file, `turn ${i + 1} is not an object`);
  const t = turn as Record<string, unknown>;
  if (t.text !== undefined && typeof t.text !== 'string') throw invalid(file, `turn ${i + 1}: "text" must be a string`);
  if (t.tool_calls !== undefined) {
    if (!Array.isArray(t.tool_calls)) throw invalid(file, `turn ${i + 1}: "tool_calls" must be a list`);
    t.tool_calls.forEach((c: unknown, j) => {
      const call = c as Record<string, unknown> | null;
      if (!call || typeof call.name !== 'string') throw invalid(file, `turn ${i + 1}, call ${j + 1}: "name" is missing`);
      if (typeof call.arguments !== 'string' && (typeof call.arguments !== 'object' || call.arguments === null)) {
        throw invalid(file, `turn ${i + 1}, call ${j + 1}: "arguments" must be an object or a string`);
      }
    });
  }
  return t as ScriptedTurn;
}

/** Turns from a transcript's `assistant` lines (see transcript.ts). */
export function scriptFromTranscript(text: string, file = 'transcript'): Script {
  const turns: ScriptedTurn[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw invalid(file, `line ${i + 1} is not JSON`);
    }
    if (event.type !== 'assistant') return;
    const calls = Array.isArray(event.tool_calls) ? (event.tool_calls as Array<Record<string, unknown>>) : [];
    const usage = event.usage as { input?: number; output?: number } | undefined;
    turns.push({
      ...(typeof event.text === 'string' && event.text !== '' ? { text: event.text } : {}),
      ...(calls.length > 0
        ? { tool_calls: calls.map((c) => ({ name: String(c.name), arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}), ...(typeof c.id === 'string' ? { id: c.id } : {}) })) }
        : {}),
      ...(usage && typeof usage.input === 'number' ? { usage: { input: usage.input, output: usage.output ?? 0 } } : {}),
    });
  });
  if (turns.length === 0) throw invalid(file, 'it has no assistant turns');
  return { turns };
}

/** Reads a script file: JSON `{turns}` or a transcript in JSON lines. */
export function loadScript(file: string): Script {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new AgentError({
      code: AgentErrorCode.MODEL_SPEC,
      message: `Cannot read the script ${file}: ${(error as Error).message}.`,
      hint: 'replay:FILE names a script ({"turns": [...]}) or a transcript.jsonl from a previous run.',
    });
  }
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') && !file.endsWith('.jsonl')) {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw invalid(file, `not valid JSON (${(error as Error).message})`);
    }
    const turns = (data as { turns?: unknown })?.turns;
    if (!Array.isArray(turns)) throw invalid(file, 'it has no "turns" list');
    return { turns: turns.map((t, i) => checkTurn(file, t, i)) };
  }
  return scriptFromTranscript(text, file);
}
