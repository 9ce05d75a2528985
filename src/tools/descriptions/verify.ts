/**
 * What a model reads about verify (opencode's habit: the description beside the tool, in a file of its
 * own; a .ts module, so tsc, the CLI bundle and the published package carry it as they carry code).
 */
export const verifyDescription = [
  "Run the project's build (or tests) and judge it by exit code: the configured verify.build / verify.test command, else the one `detect` finds.",
  'Returns pass/fail, the compiler diagnostics (file:line: message) and the last lines of output; full logs are kept as artifacts.',
  'Verify after a series of edits, fix what it reports, and verify again. It never runs any other command.',
].join(' ');
