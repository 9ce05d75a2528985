/**
 * The one host API this program uses. Declared here instead of loading the DOM library (the default for this
 * target, ~1 MB of types a Node program never uses): every build of the demo type-checks in half the time.
 */
declare const console: { log(message: string): void };
