#!/usr/bin/env python3
# mkdeep.py DEPTH SETS: in the git repository of the current folder, a
# commit (its id on stdout; no ref, no checkout) whose folders d00 ..
# d<SETS-1> each nest DEPTH folders deep (dNN/a/a/.../a/f: the folder dNN
# and DEPTH - 1 folders a, the last holding a file f), and whose ripple.yml
# gives each folder a source set and an artifact: even sets are
# dNN/**/f (walked file by file), odd ones dNN/** (keyed from tree ids).
# All folders share one chain of trees, written as loose objects (git
# cannot check out such a tree: its paths are 8 KB long). graph/tree.c
# walks at most 4096 folders deep (git's core.maxTreeDepth): DEPTH 4096
# keys, 4097 is an error. Used by tests/e2e/parallel_keys_test.c and
# tools/windows/compare.sh.
import hashlib, os, subprocess, sys, zlib

depth, sets = int(sys.argv[1]), int(sys.argv[2])


def obj(kind, body):
    data = kind.encode() + b' %d\0' % len(body) + body
    h = hashlib.sha1(data).hexdigest()
    path = os.path.join('.git', 'objects', h[:2], h[2:])
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(zlib.compress(data))
    return bytes.fromhex(h)


tree = obj('tree', b'100644 f\0' + obj('blob', b'leaf\n'))
for _ in range(depth - 1):
    tree = obj('tree', b'40000 a\0' + tree)
rules = b'version: 1\nsources:\n'
for s in range(sets):
    pat = b'd%02d/**' % s if s % 2 else b'd%02d/**/f' % s
    rules += b'  s%02d: {paths: [%s]}\n' % (s, pat)
rules += b'artifacts:\n'
for s in range(sets):
    rules += b'  n%02d: {inputs: [s%02d], command: [build, n%02d]}\n' % (
        s, s, s)
root = b''.join(b'40000 d%02d\0' % s + tree for s in range(sets))
root += b'100644 ripple.yml\0' + obj('blob', rules)
env = dict(os.environ, GIT_AUTHOR_NAME='t', GIT_AUTHOR_EMAIL='t@example.com',
           GIT_COMMITTER_NAME='t', GIT_COMMITTER_EMAIL='t@example.com',
           GIT_AUTHOR_DATE='2026-01-01T00:00:00Z',
           GIT_COMMITTER_DATE='2026-01-01T00:00:00Z')
print(subprocess.check_output(
    ['git', 'commit-tree', obj('tree', root).hex(), '-m',
     'folders %d deep' % depth], env=env).decode().strip())
