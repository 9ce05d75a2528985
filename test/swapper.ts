/**
 * A real process that swaps two paths as fast as it can (renameat2
 * RENAME_EXCHANGE: at every moment one of the two names is the folder and
 * the other the symlink), for the race tests of the race-free resolver. It
 * prints "swapping" once it runs and, on SIGTERM, how many swaps it made.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const GCC = '/usr/bin/gcc';
const SWAPPER = `#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/syscall.h>
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
static volatile sig_atomic_t stop = 0;
static void on_term(int sig) { (void)sig; stop = 1; }
int main(int argc, char **argv) {
  (void)argc;
  signal(SIGTERM, on_term);
  long swaps = 0;
  printf("swapping\\n");
  fflush(stdout);
  while (!stop) {
    if (syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE) == 0) swaps++;
  }
  printf("%ld\\n", swaps);
  return 0;
}
`;

/** Whether the swapper can be built and run here (a C compiler, Linux's renameat2). */
export const swapperBuildable = fs.existsSync(GCC) && process.platform === 'linux';

/** Compiles the swapper into `dir`; its path. */
export function buildSwapper(dir: string): string {
  fs.writeFileSync(path.join(dir, 'swap.c'), SWAPPER);
  const swapper = path.join(dir, 'swap');
  execFileSync(GCC, ['-O2', '-o', swapper, path.join(dir, 'swap.c')]);
  return swapper;
}
