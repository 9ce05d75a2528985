/**
 * The one check of a folder named as a workspace root, wherever it is named
 * (`--root`, the working folder, an MCP client's root): it exists and is a
 * folder, and the answer is its real path. Every entry refuses a bad root
 * with the same code and the same hint.
 */
import fs from 'node:fs';
import { EditwardenError, ErrorCode } from '../errors.js';

/** The real path of `root`, or E_NO_FILE / E_NOT_A_FILE saying how to name the project folder. */
export function realRootDir(root: string): string {
  let real: string;
  try {
    real = fs.realpathSync(root);
  } catch {
    throw new EditwardenError({
      code: ErrorCode.NO_FILE,
      message: `Workspace root ${JSON.stringify(root)} does not exist.`,
      hint: 'Pass an existing folder with --root, or run editwarden inside the project.',
    });
  }
  if (!fs.statSync(real).isDirectory()) {
    throw new EditwardenError({
      code: ErrorCode.NOT_A_FILE,
      message: `Workspace root ${JSON.stringify(root)} is not a folder.`,
      hint: 'Pass the project folder with --root.',
    });
  }
  return real;
}
