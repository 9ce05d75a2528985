/**
 * What a model reads about read_file (opencode's habit: the description beside the tool, in a file of its
 * own; a .ts module, so tsc, the CLI bundle and the published package carry it as they carry code).
 * `lines`: how many lines a read returns when no range is asked for.
 */
export function readFileDescription(lines: number): string {
  return [
    'Read a text file of the workspace, with line numbers.',
    "Returns the lines (or the range start_line..end_line) and the file's sha256 hash.",
    'Before editing a file, read it and copy old_text EXACTLY from what you read — without the line-number prefix.',
    'Pass the hash as expected_hash to edit_file/write_file so the edit is refused if the file changed since you read it.',
    `Long files are returned ${lines} lines at a time; ask for the next range with start_line.`,
  ].join(' ');
}
