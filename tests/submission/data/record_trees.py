#!/usr/bin/python3
"""Records what the official mlperf_logging tools (4.1.59) say on the
submission trees in trees/ beside this script (small subsets of other
submitters' published results, see trees/NOTICE.md) and on broken copies of
them, as official_trees.jsonl beside this script.

For every case: the package checker on the whole tree, the RCP checker on
each benchmark folder, and the result summarizer on the tree, each on its own
fresh copy (the official tools write scaling.json into the tree they check).
os.listdir, glob.glob and os.walk are sorted before the tool runs, as in
../shared/fixtures/parity/expected/MANIFEST.json, so the order of lines is
stable. Verdicts are read as that MANIFEST says.

Run with an export of mlperf_logging 4.1.59 and Debian's
python3-numpy/-scipy/-pandas/-yaml:
  /usr/bin/python3 record_trees.py LOGGING_CHECKOUT
where LOGGING_CHECKOUT holds mlperf_logging/. Only the outputs are stored;
none of the official code.

The breaks are the same as tests/submission/trees_test.cc's Break(): keep
the two in step.
"""
import json, os, re, shutil, subprocess, sys, tempfile

here = os.path.dirname(os.path.abspath(__file__))
logging_dir = os.path.abspath(sys.argv[1])

LAUNCH = r'''
import glob, os, runpy, sys
_ld, _gg, _wk = os.listdir, glob.glob, os.walk
os.listdir = lambda *a, **k: sorted(_ld(*a, **k))
glob.glob = lambda *a, **k: sorted(_gg(*a, **k))
def _walk(*a, **k):
    for d, ds, fs in _wk(*a, **k):
        ds.sort(); fs.sort(); yield d, ds, fs
os.walk = _walk
sys.path.insert(0, os.getcwd())
mod = sys.argv[1]; sys.argv = [mod] + sys.argv[2:]
runpy.run_module(mod, run_name='__main__', alter_sys=True)
'''

# tree (under trees/), rule set, whether broken copies are made of it. The
# trees with breaks pass the official package checker as published.
TREES = [
    ('v1.1/Lenovo', '1.1.0', False),
    ('v2.0/Dell', '2.0.0', False),
    ('v2.0/Google', '2.0.0', False),
    ('v2.0/NVIDIA', '2.0.0', True),
    ('v3.1/ASUSTeK', '3.1.0', True),
    ('v3.1/Google', '3.1.0', True),
]


def bench_dirs(root):
    out = []
    for system in sorted(os.listdir(os.path.join(root, 'results'))):
        for bench in sorted(os.listdir(os.path.join(root, 'results', system))):
            out.append((system, bench))
    return out


def result_files(d):
    return sorted(f for f in os.listdir(d) if re.fullmatch(r'result_.*\.txt', f))


def read(p):
    with open(p) as f:
        return f.read()


def write(p, t):
    with open(p, 'w') as f:
        f.write(t)


def abort(p):
    # Cuts the log before the line that logs run_stop.
    t = read(p)
    k = t.find('"key": "run_stop"')
    assert k >= 0, p
    write(p, t[:t.rfind('\n', 0, k) + 1])


def double_batch(p):
    # Doubles the first global_batch_size the log gives.
    t = read(p)
    key = '"key": "global_batch_size", "value": '
    k = t.find(key)
    assert k >= 0, p
    b = k + len(key)
    e = b
    while t[e].isdigit():
        e += 1
    write(p, t[:b] + str(2 * int(t[b:e])) + t[e:])


def misspell_division(p):
    t = read(p)
    k = t.find('"division"')
    v = t.find('"closed"', k)
    assert k >= 0 and v >= 0, p
    write(p, t[:v] + '"clsoed"' + t[v + len('"closed"'):])


def brk(name, root):
    # The first (only) benchmark folder of the tree and its result files in name order.
    system, bench = bench_dirs(root)[0]
    d = os.path.join(root, 'results', system, bench)
    files = result_files(d)
    sysfile = os.path.join(root, 'systems', system + '.json')
    if name in ('as_published', 'fixed'):
        return
    if name == 'missing_result_file':
        return os.remove(os.path.join(d, files[-1]))
    if name == 'misnamed_result_file':
        return os.rename(os.path.join(d, files[1]), os.path.join(d, files[1].replace('result_', 'results_', 1)))
    if name == 'missing_system_description':
        return os.remove(sysfile)
    if name == 'invalid_system_description':
        return write(sysfile, '{"submitter": ')
    if name == 'misspelled_division':
        return misspell_division(sysfile)
    if name == 'aborted_runs':
        abort(os.path.join(d, files[0]))
        return abort(os.path.join(d, files[1]))
    if name == 'one_aborted_run':
        return abort(os.path.join(d, files[0]))
    if name == 'mismatched_batch_sizes':
        return double_batch(os.path.join(d, files[1]))
    if name == 'duplicate_seed':
        return shutil.copyfile(os.path.join(d, files[0]), os.path.join(d, files[1]))
    if name == 'unknown_benchmark_folder':
        return os.rename(d, d + 'x')
    raise ValueError(name)


BREAKS = ['fixed', 'missing_result_file', 'misnamed_result_file', 'missing_system_description',
          'invalid_system_description', 'misspelled_division', 'aborted_runs', 'one_aborted_run',
          'mismatched_batch_sizes', 'duplicate_seed', 'unknown_benchmark_folder']


def run(argv, work, root):
    p = subprocess.run(['/usr/bin/python3', '-c', LAUNCH] + argv, capture_output=True, text=True, cwd=logging_dir)
    def norm(s):
        return s.replace(root, '<TREE>').replace(work, '<WORK>').replace(logging_dir, '<PKG>')
    out, err = norm(p.stdout), norm(p.stderr)
    crash = None
    if p.returncode != 0 and 'Traceback (most recent call last)' in err:
        crash = err.strip().splitlines()[-1]
    return p.returncode, out, err, crash


def error_messages(err):
    # Each ERROR record of the log with its continuation lines (the seed
    # checker joins its messages with newlines), without the "ERROR - " tag.
    out, in_error = [], False
    for line in err.splitlines():
        if line.startswith('ERROR - '):
            out.append(line[len('ERROR - '):])
            in_error = True
        elif in_error and not re.match(r'(INFO|WARNING|DEBUG|CRITICAL|ERROR)\b|\*\*|Traceback', line):
            out[-1] += '\n' + line
        else:
            in_error = False
    return out


def copy_of(tree, case):
    work = tempfile.mkdtemp()
    root = os.path.join(work, os.path.basename(tree))
    shutil.copytree(os.path.join(here, 'trees', tree), root)
    brk(case, root)
    return work, root


records = []
for tree, ruleset, breaks in TREES:
    for case in (BREAKS if breaks else ['as_published']):
        base = {'tree': tree, 'case': case, 'ruleset': ruleset}
        # The package checker.
        work, root = copy_of(tree, case)
        code, out, err, crash = run(['mlperf_logging.package_checker', root, 'training', ruleset,
                                     '--log_output', os.path.join(work, 'package_checker.log')], work, root)
        verdict = 'CRASH' if crash else ('PASS' if 'PACKAGE CHECKER FOUND NO ERRORS, SUCCESS !' in err else 'FAIL')
        records.append(dict(base, tool='package_checker', target='.', verdict=verdict, exit_code=code, crash=crash,
                            error_lines=[l for l in err.splitlines() if l.startswith('ERROR')],
                            error_messages=error_messages(err)))
        print(tree, case, 'package_checker', verdict, crash or '', file=sys.stderr)
        dirs = bench_dirs(root)
        shutil.rmtree(work)
        # The RCP checker, on each benchmark folder.
        for system, bench in dirs:
            work, root = copy_of(tree, case)
            target = os.path.join(root, 'results', system, bench)
            code, out, err, crash = run(['mlperf_logging.rcp_checker', target, '--rcp_usage', 'training',
                                         '--rcp_version', ruleset, '--log_output',
                                         os.path.join(work, 'rcp_checker.log')], work, root)
            verdict = 'CRASH' if crash else ('PASS' if code == 0 else 'FAIL')
            records.append(dict(base, tool='rcp_checker', target=f'results/{system}/{bench}', verdict=verdict,
                                exit_code=code, crash=crash, stderr=err))
            print(tree, case, 'rcp_checker', verdict, crash or '', file=sys.stderr)
            shutil.rmtree(work)
        # The result summarizer.
        work, root = copy_of(tree, case)
        csv = os.path.join(work, 'summary.csv')
        code, out, err, crash = run(['mlperf_logging.result_summarizer', root, 'training', ruleset, '--csv', csv],
                                    work, root)
        outputs = {}
        for name in ('summary.csv', 'summary_detailed.csv', 'summary.json', 'summary_detailed.json'):
            p = os.path.join(work, name)
            if os.path.exists(p):
                outputs[name] = read(p).replace(root, '<TREE>')
        if crash or code != 0:
            verdict = 'CRASH'
        elif any(l.startswith('ERROR') or l.startswith('CRITICAL ERROR') for l in out.splitlines()):
            verdict = 'FAIL'
        else:
            verdict = 'PASS'
        records.append(dict(base, tool='result_summarizer', target='.', verdict=verdict, exit_code=code,
                            crash=crash, stdout=out, outputs=outputs))
        print(tree, case, 'result_summarizer', verdict, crash or '', file=sys.stderr)
        shutil.rmtree(work)

with open(os.path.join(here, 'official_trees.jsonl'), 'w') as f:
    for r in records:
        f.write(json.dumps(r, sort_keys=True) + '\n')
