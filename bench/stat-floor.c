// The floor of any checkpoint that must notice an in-place edit without a
// file watcher, measured in C: list every folder (readdir) and lstat every
// entry in it (fstatat relative to the opened folder, no symlink followed),
// skipping `.git` and `.editwarden` as the workspace walk does. Nothing is
// compared, hashed, allocated per file or written: whatever a real checkpoint
// does comes on top. With THREADS > 1 the folders are shared out through one
// queue, as a parallel walk would (git's preload-index splits its stats over
// threads the same way).
// Used by bench/checkpoint.bench.mjs (compiled there with `cc -O2 -pthread`).
// Usage: stat-floor ROOT ROUNDS THREADS   → prints the median milliseconds of ROUNDS walks.
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_DIRS (1 << 20)

static int queue[MAX_DIRS];
static int head, tail, busy;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more = PTHREAD_COND_INITIALIZER;

static void push(int fd) {
  pthread_mutex_lock(&lock);
  if (tail < MAX_DIRS) queue[tail++] = fd; else close(fd);
  pthread_cond_signal(&more);
  pthread_mutex_unlock(&lock);
}

// The next folder to list, or -1 once the queue is empty and no thread can add to it.
static int pop(void) {
  pthread_mutex_lock(&lock);
  while (head == tail && busy > 0) pthread_cond_wait(&more, &lock);
  int fd = -1;
  if (head < tail) { fd = queue[head++]; busy++; }
  pthread_mutex_unlock(&lock);
  return fd;
}

static void done(void) {
  pthread_mutex_lock(&lock);
  busy--;
  pthread_cond_broadcast(&more);
  pthread_mutex_unlock(&lock);
}

static void *worker(void *unused) {
  (void)unused;
  for (int fd; (fd = pop()) != -1; done()) {
    DIR *dir = fdopendir(fd);
    if (dir == NULL) { close(fd); continue; }
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
      const char *n = e->d_name;
      if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 || strcmp(n, ".git") == 0 || strcmp(n, ".editwarden") == 0) continue;
      struct stat st;
      if (fstatat(dirfd(dir), n, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      if (S_ISDIR(st.st_mode)) {
        int child = openat(dirfd(dir), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (child >= 0) push(child);
      }
    }
    closedir(dir);
  }
  return NULL;
}

static double walk(const char *root, int threads) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  head = tail = busy = 0;
  push(open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  pthread_t ids[64];
  for (int i = 0; i < threads; i++) pthread_create(&ids[i], NULL, worker, NULL);
  for (int i = 0; i < threads; i++) pthread_join(ids[i], NULL);
  clock_gettime(CLOCK_MONOTONIC, &b);
  return (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
}

static int by_value(const void *x, const void *y) {
  double d = *(const double *)x - *(const double *)y;
  return d < 0 ? -1 : d > 0;
}

int main(int argc, char **argv) {
  if (argc != 4) { fprintf(stderr, "usage: stat-floor ROOT ROUNDS THREADS\n"); return 64; }
  int rounds = atoi(argv[2]), threads = atoi(argv[3]);
  if (rounds < 1 || rounds > 1000 || threads < 1 || threads > 64) { fprintf(stderr, "stat-floor: ROUNDS 1-1000, THREADS 1-64\n"); return 64; }
  double *ms = calloc(rounds, sizeof *ms);
  for (int i = 0; i < rounds; i++) ms[i] = walk(argv[1], threads);
  qsort(ms, rounds, sizeof *ms, by_value);
  printf("%.3f\n", ms[rounds / 2]);
  return 0;
}
