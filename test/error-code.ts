import { EditwardenError } from '../src/errors.js';

/** The code `fn` is refused with (undefined when it is not refused); anything else thrown is named as such, so an expectation on a code shows it. */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error instanceof EditwardenError ? error.code : `non-editwarden: ${String(error)}`;
  }
}
