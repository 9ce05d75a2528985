/**
 * The "Examples:" section of every command's `--help`: people copy an example
 * before they read an option table. Kept in one table (command path → lines)
 * so that each command module stays about its behaviour; a command that
 * writes its own examples with `addHelpText` is left as it is.
 *
 * Must never: show an example that the command would refuse (the help test
 * runs each `--help`; the docs test runs the documented ones).
 */
import type { Command } from 'commander';

const EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  editwarden: ["editwarden edit src/app.ts --old 'return 1;' --new 'return 2;' --dry-run", 'editwarden apply reply.md', 'editwarden doctor', 'editwarden mcp --root "$PWD"'],
  edit: [
    "editwarden edit src/app.ts --old 'return 1;' --new 'return 2;' --dry-run",
    "editwarden edit src/app.ts --old 'foo(' --new 'bar(' --replace-all",
    "editwarden edit NOTES.md --mode append --new '- one more line'",
    'echo \'{"path": "src/app.ts", "old_text": "a", "new_text": "b"}\' | editwarden edit --request - --json',
  ],
  apply: ['editwarden apply reply.md --dry-run', 'git diff | editwarden apply --format udiff --strict', 'editwarden apply reply.md --partial --json'],
  ast: ['editwarden ast list src/greeter.ts', 'editwarden ast show src/greeter.ts Greeter-greet'],
  'ast list': ['editwarden ast list src/greeter.ts', 'editwarden ast list src/greeter.py --json'],
  'ast show': ['editwarden ast show src/greeter.ts Greeter-greet', "editwarden ast show src/geo.rs 'Geo#2-dist'"],
  checkpoint: ['editwarden checkpoint create --name before-refactor', 'editwarden checkpoint list', 'editwarden checkpoint restore <id>'],
  'checkpoint create': ['editwarden checkpoint create --name before-refactor', 'editwarden checkpoint create --scope files src/a.ts src/b.ts --json'],
  'checkpoint list': ['editwarden checkpoint list', 'editwarden checkpoint list --json'],
  'checkpoint diff': ['editwarden checkpoint diff <id>', 'editwarden checkpoint diff <id> --no-patch'],
  'checkpoint restore': ['editwarden checkpoint restore <id>'],
  'checkpoint drop': ['editwarden checkpoint drop <id>'],
  'checkpoint prune': ['editwarden checkpoint prune --keep-last 20', 'editwarden checkpoint prune --keep-last 20 --older-than 7d'],
  verify: ['editwarden verify', 'editwarden verify --build', 'editwarden verify --cmd "make check" --timeout 120', 'editwarden verify --baseline --json'],
  detect: ['editwarden detect', 'editwarden detect --json'],
  'controlled-edit': ["editwarden controlled-edit --file src/greeting.cpp --old 'return 1;' --new 'return 2;'", 'editwarden controlled-edit --file src/app.ts --old-file old.txt --new-file new.txt --build "npm run build"'],
  exec: ['editwarden exec calls.jsonl', "editwarden exec calls.jsonl --max-files 3 --deny 'migrations/**' --on-violation rollback"],
  run: [
    'editwarden run --task "Fix the failing test" --model openai:gpt-4.1',
    'editwarden run --task-file TASK.md --model anthropic:claude-sonnet-4-5 --mode interactive',
    'editwarden run --mode editor --task "Add farewell()" --model openai:gpt-4.1 --dry-run',
  ],
  'apply-proposal': ['editwarden apply-proposal .editwarden/runs/<run_id>/proposal.diff', 'editwarden apply-proposal proposal.diff --model openai:gpt-4.1'],
  mcp: ['editwarden mcp --root "$PWD"', 'editwarden mcp --root "$PWD" --headless', 'editwarden mcp --root "$PWD" --http 8765', 'editwarden mcp --root "$PWD" --http 8765 --token-file ~/.config/editwarden/mcp.token'],
  demo: ['editwarden demo', 'editwarden demo --sample ts --clean'],
  doctor: ['editwarden doctor', 'editwarden doctor --only config,git --json'],
  init: ['editwarden init claude --dry-run', 'editwarden init claude', 'editwarden init gemini --root ~/src/app'],
  hook: ['echo \'{"tool_name":"Write","tool_input":{"file_path":"a.txt","content":"x"}}\' | editwarden hook claude pre-tool-use'],
  'hook-server': ['editwarden hook-server --socket "$XDG_RUNTIME_DIR/editwarden-$(id -u)/hook-<build>.sock" --build <build>   # started by the hooks themselves'],
  trust: ['editwarden trust', 'editwarden trust --root ~/src/app', 'editwarden trust --list', 'editwarden trust --revoke'],
  undo: ['editwarden undo', 'editwarden undo --list', 'editwarden undo --session last', 'editwarden undo --to <step>', 'editwarden undo --dry-run', 'editwarden undo --run <run_id>', 'editwarden undo --json'],
  publish: ['editwarden publish "$RUNNER_TEMP/editwarden-report"', 'editwarden publish out/ --since 2026-11-29T01:00:00Z --json'],
  shell: ['editwarden shell --client claude --tool Bash --root "$PWD" --session <session_id> -- \'npm test\''],
  redo: ['editwarden redo', 'editwarden redo --session last', 'editwarden redo --json'],
  log: ['editwarden log', 'editwarden log --json', 'editwarden log --run <run_id>', 'editwarden log --session <session_id>'],
  report: ['editwarden report', 'editwarden report --format html -o report.html', 'editwarden report --session <session_id> --format md', 'editwarden report --all --format html -o report.html'],
  'checkpoint repair': ['editwarden checkpoint repair', 'editwarden checkpoint repair --drop <record>', 'editwarden checkpoint repair --retry <record>'],
};

/** Adds the table's examples to `command` and every command below it, by command path. */
export function addExamples(command: Command, parents: readonly string[] = []): void {
  const key = parents.length === 0 ? command.name() : [...parents.slice(1), command.name()].join(' ');
  const lines = EXAMPLES[key];
  if (lines) command.addHelpText('after', `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`);
  for (const sub of command.commands) if (sub.name() !== 'help') addExamples(sub, [...parents, command.name()]);
}
