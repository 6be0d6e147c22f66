#!/usr/bin/env python3
"""Issue 28's ratios: ripple beside the git floor, in one run.

    bench/floor_bench.py [--sizes 100000] [--reps 9] [--ripple build/ripple]
                         [--before OTHER_RIPPLE] [--also NAME=RIPPLE]...
                         [--jobs "1 2"] [--moon MOON] [--dir /tmp/peerbench]

Makes (or reuses) the peerbench repository of each size with
../shared/bench/peerbench/gen-repo (500 packages; bench-head edits 10
files in 3 packages, 15 affected), then times, interleaved rep by rep so
that a noisy machine slows every row alike:

  git diff --name-only BASE HEAD      the floor of a warm plan and of why
  git ls-tree -r HEAD                 the floor of a cold plan
  git --version / git describe        the floors of start-up and version
  ripple plan --base BASE --head HEAD --json   warm: a run recorded at BASE
  ripple plan ... --assume-base-built --json   cold: no cache
  ripple why artifact:pkg-0037 ...    warm
  ripple --version
  ripple version bindings-13          on the cuda-bindings demo (its package
                                      roots), beside git describe --tags there

Each row reports the median wall time, the median CPU time of the child
(user + system, from wait4: steadier than wall time on a shared machine)
and the peak RSS of one more run under /usr/bin/time; the ratios are printed for both. With --before, the
ripple rows are also timed with that binary in the same run (a before /
after table); --also NAME=BIN adds another (a --static-libs build).
--jobs "1 2" times the plan and why rows of every binary once per number
of threads keying source sets (RIPPLE_JOBS=N; a binary older than -j
ignores it), rows and ratios named "-jN"; without it each binary keys on
its default (the cores, at most 8). With moon installed
(../shared/bench/peerbench/install-peers puts it under
/tmp/peerbench-tools; --moon names another, --moon "" leaves it out),
moon's affected query (run-bench's, its cache kept) is a row too, and
each cold plan is also divided by it (issue 28: faster than moon).
Turborepo, Nx and moon: ../shared/bench/peerbench/run-bench.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def gen_repo(peer, path, files):
    if os.path.isdir(os.path.join(path, ".git")):
        return
    if os.path.exists(path):
        shutil.rmtree(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    subprocess.run([os.path.join(peer, "gen-repo"), path, "--files",
                    str(files), "--packages", "500", "--seed", "1"],
                   check=True, stdout=subprocess.DEVNULL)


def run_once(argv, cwd, env, prep=None):
    """(wall s, cpu s, exit status) of one run.

    posix_spawn (vfork-like, no copy of this interpreter) so that the
    child's peak RSS and wall time are its own.
    """
    if prep:
        prep()
    prog = shutil.which(argv[0])
    acts = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0)]
    old = os.getcwd()
    os.chdir(cwd)
    try:
        t0 = time.perf_counter()
        pid = os.posix_spawn(prog, argv, env, file_actions=acts)
        _, status, ru = os.wait4(pid, 0)
        wall = time.perf_counter() - t0
    finally:
        os.chdir(old)
    return wall, ru.ru_utime + ru.ru_stime, status


def peak_mib(argv, cwd, env, prep, tmp):
    """Peak RSS in MiB of one run under /usr/bin/time (its %M: the child
    forked from time, not a copy of this interpreter), or None."""
    if not os.access("/usr/bin/time", os.X_OK):
        return None
    if prep:
        prep()
    out = os.path.join(tmp, "time.out")
    subprocess.run(["/usr/bin/time", "-f", "%M", "-o", out] + argv,
                   cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    with open(out) as f:
        return int(f.read().split()[-1]) / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="100000")
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--ripple", default=os.path.join(ROOT, "build/ripple"))
    ap.add_argument("--before", help="another ripple binary to time beside")
    ap.add_argument("--also", action="append", default=[],
                    metavar="NAME=BIN", help="one more ripple binary to "
                    "time beside, its rows named NAME (e.g. static=DIR/"
                    "ripple, built with ./configure --static-libs)")
    ap.add_argument("--jobs", default="", help="numbers of threads "
                    "keying source sets to time the plan and why rows "
                    "with, e.g. \"1 2\" (RIPPLE_JOBS)")
    ap.add_argument("--moon", default=os.path.join(
        os.environ.get("PEERBENCH_TOOLS", "/tmp/peerbench-tools"),
        "node_modules", "@moonrepo", "core-linux-x64-gnu", "moon"),
        help="moon's binary, timed beside (\"\": not timed)")
    ap.add_argument("--dir", default=os.path.join(
        os.environ.get("TMPDIR", "/tmp"), "peerbench"))
    ap.add_argument("--peerbench", default=os.environ.get(
        "PEERBENCH", os.path.join(ROOT, "..", "shared", "bench",
                                  "peerbench")))
    a = ap.parse_args()
    binaries = [("ripple", os.path.abspath(a.ripple))]
    if a.before:
        binaries.insert(0, ("before", os.path.abspath(a.before)))
    for x in a.also:
        name, sep, path = x.partition("=")
        if not sep or not name or " " in name:
            sys.exit("--also wants NAME=BIN, got %r" % x)
        binaries.append((name, os.path.abspath(path)))
    for _, b in binaries:
        if not os.access(b, os.X_OK):
            sys.exit("no ripple binary at %s (run ninja)" % b)
    tmp = tempfile.mkdtemp(prefix="floor-bench-")
    try:
        for size in [int(s) for s in a.sizes.split()]:
            bench_size(a, binaries, size, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def row_name(tag, what, jobs):
    """'ripple plan cold', or with a number of threads 'ripple -j2 plan
    cold'."""
    return "%s%s %s" % (tag, " -j%d" % jobs if jobs else "", what)


def bench_size(a, binaries, size, tmp):
    """Time every row for one repository size and print the table."""
    repo = os.path.join(a.dir, "repo-%d" % size)
    gen_repo(a.peerbench, repo, size)
    base, head = "bench-base", "bench-head"
    env = dict(os.environ)
    env.pop("RIPPLE_REMOTE_CACHE", None)
    demo = os.path.join(tmp, "demo")
    if not os.path.isdir(demo):
        subprocess.run([os.path.join(ROOT, "examples", "cuda-bindings",
                                     "make-demo-repo"), demo], check=True,
                       stdout=subprocess.DEVNULL, env=dict(
                           env, GIT_AUTHOR_NAME="b", GIT_COMMITTER_NAME="b",
                           GIT_AUTHOR_EMAIL="b@example.com",
                           GIT_COMMITTER_EMAIL="b@example.com"))
    rows = [("git diff", ["git", "diff", "--name-only", base, head], env,
             None, repo),
            ("git ls-tree", ["git", "ls-tree", "-r", head], env, None, repo),
            ("git --version", ["git", "--version"], env, None, repo),
            ("git describe", ["git", "describe", "--tags"], env, None, demo)]
    moon = a.moon and os.access(a.moon, os.X_OK)
    if moon:
        rows.append(("moon affected", ["bash", "-c", (
            "set -o pipefail; M='%s'; \"$M\" query changed-files --base "
            "%s --head %s | \"$M\" query projects --affected --downstream "
            "deep") % (a.moon, base, head)], env, None, repo))
    jobs = [int(j) for j in a.jobs.split()] or [None]
    for tag, b in binaries:
        # One cache per binary and size: a run recorded at one size's
        # base is another commit than the next size's.
        warm = dict(env, RIPPLE_CACHE=os.path.join(
            tmp, "%s-%d-warm.db" % (tag, size)))
        cold_db = os.path.join(tmp, "%s-%d-cold.db" % (tag, size))
        for args in (["record", "--run", "base", "--rev", base, "--node",
                      "*", "--status", "ok"],
                     ["record", "--run", "base", "--finish", "ok"]):
            subprocess.run([b] + args, cwd=repo, env=warm, check=True,
                           stdout=subprocess.DEVNULL)

        def wipe(path=cold_db):
            for s in ("", "-wal", "-shm"):
                if os.path.exists(path + s):
                    os.unlink(path + s)
        for j in jobs:
            jw = dict(warm, RIPPLE_JOBS=str(j)) if j else warm
            jc = dict(env, RIPPLE_CACHE=cold_db)
            if j:
                jc["RIPPLE_JOBS"] = str(j)
            rows += [
                (row_name(tag, "plan warm", j),
                 [b, "plan", "--base", base, "--head", head, "--json"],
                 jw, None, repo),
                (row_name(tag, "plan cold", j),
                 [b, "plan", "--base", base, "--head", head,
                  "--assume-base-built", "--json"], jc, wipe, repo),
                (row_name(tag, "why warm", j),
                 [b, "why", "artifact:pkg-0037", "--base", base, "--head",
                  head], jw, None, repo)]
        rows += [
            (tag + " --version", [b, "--version"], env, None, repo),
            (tag + " version", [b, "version", "bindings-13"], env, None,
             demo)]
    got = {r[0]: [] for r in rows}
    for i in range(a.reps + 1):
        for name, argv, e, prep, cwd in rows:
            m = run_once(argv, cwd, e, prep)
            if m[2] != 0:
                sys.exit("%s failed (status %d) in %s" % (
                    " ".join(argv), m[2], cwd))
            if i:		# the first rep warms the page cache
                got[name].append(m)
    med = {n: (statistics.median(x[0] for x in v) * 1e3,
               statistics.median(x[1] for x in v) * 1e3)
           for n, v in got.items()}
    peak = {name: peak_mib(argv, cwd, e, prep, tmp)
            for name, argv, e, prep, cwd in rows}
    print("## %d files, 500 packages, %d reps (median), %s" % (
        size, a.reps, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))
    print("%-28s %10s %10s %9s" % ("command", "wall ms", "cpu ms",
                                   "peak MiB"))
    for name, _, _, _, _ in rows:
        w, c = med[name]
        r = peak[name]
        print("%-28s %10.1f %10.1f %9s" % (name, w, c, "-" if r is None
                                            else "%.1f" % r))
    print()
    print("%-48s %7s %7s" % ("ratio (issue 28 goal)", "wall", "cpu"))
    for tag, _ in binaries:
        for label, num, den, per_jobs in (
                ("plan warm / git diff (<= 2)", "plan warm", "git diff",
                 1),
                ("plan cold / git ls-tree (<= 0.5)", "plan cold",
                 "git ls-tree", 1),
                ("plan cold / moon affected (< 1)", "plan cold",
                 "moon affected", 1),
                ("why warm / git diff (<= 3)", "why warm", "git diff", 1),
                ("--version / git --version (<= 2)", "--version",
                 "git --version", 0),
                ("version / git describe (<= 2)", "version",
                 "git describe", 0)):
            for j in jobs if per_jobs else [None]:
                if den not in med:
                    continue	# moon not installed
                n, d = med[row_name(tag, num, j)], med[den]
                print("%-48s %6.2fx %6.2fx" % (
                    row_name(tag, "", j).strip() + ": " + label,
                    n[0] / d[0], n[1] / d[1]))
    print()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
