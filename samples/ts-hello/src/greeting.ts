/** Builds the greeting printed by the program. */
export function greeting(name: string): string {
  return `Hello, ${name}!`;
}

/** How many times the greeting is printed. */
export function repeatCount(): number {
  return 1;
}
