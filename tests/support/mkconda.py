#!/usr/bin/env python3
# mkconda.py KIND PATH NAME VERSION BUILD: a conda package at PATH whose
# info/index.json says NAME, VERSION and BUILD, as conda-build and
# conda-package-handling write them: KIND bz2 (a .tar.bz2), conda (a .conda:
# a zip holding info-*.tar.zst and pkg-*.tar.zst) or conda-noinfo (without
# the info tarball). Needs zstd. Used by tests/e2e/conda_record_test.c and
# tools/windows/conda.sh.
import io, json, os, subprocess, sys, tarfile, zipfile
kind, path, name, ver, build = sys.argv[1:6]
index = json.dumps({'name': name, 'version': ver, 'build': build,
                    'build_number': 0, 'subdir': 'linux-64',
                    'depends': []}).encode()
def tar(files, mode='w', fileobj=None, name=None):
    b = io.BytesIO()
    with tarfile.open(name=name, fileobj=None if name else b,
                      mode=mode) as t:
        for n, data in files.items():
            ti = tarfile.TarInfo(n)
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))
    return b.getvalue()
def zst(data):
    return subprocess.run(['zstd', '-q', '-c'], input=data,
                          capture_output=True, check=True).stdout
os.makedirs(os.path.dirname(path), exist_ok=True)
files = {'info/index.json': index, 'lib/libpkg.so': b'\x7fELF'}
if kind == 'bz2':
    tar(files, 'w:bz2', name=path)
else:
    stem = os.path.basename(path)[:-len('.conda')]
    with zipfile.ZipFile(path, 'w', zipfile.ZIP_STORED) as z:
        z.writestr('metadata.json',
                   json.dumps({'conda_pkg_format_version': 2}))
        z.writestr(f'pkg-{stem}.tar.zst',
                   zst(tar({'lib/libpkg.so': b'\x7fELF'})))
        if kind == 'conda':
            z.writestr(f'info-{stem}.tar.zst',
                       zst(tar({'info/index.json': index})))
