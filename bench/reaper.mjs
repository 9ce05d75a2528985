// A python3 subreaper (PR_SET_CHILD_SUBREAPER) that runs the benches' processes and counts ALL the CPU they cause.
// bubblewrap's pid namespace's init is killed after bubblewrap exits and reaped by whoever adopts it, so a plain
// parent's rusage (/proc/self/stat's children) misses the sandbox's side: bwrap over `true` shows ~1.5 ms there and
// ~8–12 ms here (its mounts are kernel CPU of that init). Used by guarded-shell-floor.mjs and ab-guarded-shell.mjs.
import { spawn } from 'node:child_process';

/** Runs each job (file, args, env) as its child, waits for it and for every orphan it adopted, and answers its wall and CPU (ms). */
const REAPER = `
import ctypes, json, os, resource, sys, time
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)
for line in sys.stdin:
    job = json.loads(line)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        fd = os.open('/dev/null', os.O_RDWR)
        for i in (0, 1, 2):
            os.dup2(fd, i)
        if job.get('cwd'):
            os.chdir(job['cwd'])
        os.execve(job['file'], [job['file']] + job['args'], job['env'])
    _, status = os.waitpid(pid, 0)
    wall = (time.monotonic() - t0) * 1000
    # The orphans adopted (a sandbox's init, killed as bubblewrap exits): reaped as they end; one that lives on (a
    # server a client started) is left after 2 s, and adopted by init when this process ends.
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        try:
            if os.waitpid(-1, os.WNOHANG) == (0, 0):
                time.sleep(0.0005)
        except ChildProcessError:
            break
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    print(json.dumps({'wall': wall, 'cpu': cpu, 'code': os.waitstatus_to_exitcode(status)}), flush=True)
`;

export function reaper() {
  const child = spawn('python3', ['-c', REAPER], { stdio: ['pipe', 'pipe', 'inherit'] });
  let buffered = '';
  const waiting = [];
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    for (let at = buffered.indexOf('\n'); at !== -1; at = buffered.indexOf('\n')) {
      waiting.shift()(JSON.parse(buffered.slice(0, at)));
      buffered = buffered.slice(at + 1);
    }
  });
  return {
    /** Runs `file` with `args` and `env` (in `cwd`); resolves to its wall time to its own exit, the CPU of all it started (ms), its exit code. */
    run: (file, args, env, cwd) =>
      new Promise((resolve) => {
        waiting.push(resolve);
        child.stdin.write(`${JSON.stringify({ file, args, env, cwd })}\n`);
      }),
    end: () => child.stdin.end(),
  };
}
