/** The live status line shows each limit the run has, and the count alone where it has none (an interactive run's unset caps). */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/config.js';
import { formatStatus } from '../../src/cli/run-status.js';

const totals = { files_modified: 3, lines_added: 10, lines_removed: 2, tokens_used: 40, elapsed_seconds: 1.25 };

describe('formatStatus', () => {
  it('a headless run: every count against its limit', () => {
    expect(formatStatus(totals, defaultConfig().constraints)).toBe('⏵ files 3/10 · lines 12/500 · tokens 40/50000 · 1.3s/300s');
  });

  it('no limit (Infinity) shows the count alone, never "Infinity"', () => {
    const c = defaultConfig().constraints;
    const none = { ...c, max_files: Number.POSITIVE_INFINITY, max_tokens: Number.POSITIVE_INFINITY, timeout: Number.POSITIVE_INFINITY };
    expect(formatStatus(totals, none)).toBe('⏵ files 3 · lines 12/500 · tokens 40 · 1.3s');
  });
});
