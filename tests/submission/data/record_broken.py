#!/usr/bin/python3
"""Records what the official package checker says on broken copies of the
v4.0 Intel-HabanaLabs parity tree (the same breaks as package_test.cc's
BrokenCopy cases), as official_broken.jsonl beside this script.

Run from a scratch folder holding an export of mlperf_logging (4.1.59) with
Debian's python3-numpy/-scipy/-pandas/-yaml:
  cd SCRATCH && /usr/bin/python3 .../record_broken.py SHARED_DIR
Only the outputs are stored; none of the official code.
"""
import json, os, re, shutil, subprocess, sys, tempfile

shared = sys.argv[1]
src = os.path.join(shared, 'fixtures/parity/trees/v4.0/Intel-HabanaLabs')
lora = 'results/HLS-Gaudi2-PT/llama2_70b_lora'

def replace(path, a, b):
    t = open(path).read()
    assert a in t, (path, a)
    open(path, 'w').write(t.replace(a, b, 1))

def abort(path):
    t = open(path).read()
    k = t.find('"key": "run_stop"')
    open(path, 'w').write(t[:t.rfind('\n', 0, k) + 1])

BREAKS = {
    'fixed': lambda r: None,
    'missing_result_file': lambda r: os.remove(f'{r}/{lora}/result_9.txt'),
    'misnamed_result_file': lambda r: os.rename(f'{r}/{lora}/result_3.txt', f'{r}/{lora}/results_3.txt'),
    'missing_system_description': lambda r: os.remove(f'{r}/systems/HLS-Gaudi2-PT.json'),
    'invalid_system_description': lambda r: open(f'{r}/systems/HLS-Gaudi2-PT.json', 'w').write('{"submitter": '),
    'misspelled_division': lambda r: replace(f'{r}/systems/HLS-Gaudi2-PT.json', '"division": "closed"', '"division": "clsoed"'),
    'missing_division': lambda r: replace(f'{r}/systems/HLS-Gaudi2-PT.json', '"division": "closed",', ''),
    'aborted_runs': lambda r: (abort(f'{r}/{lora}/result_1.txt'), abort(f'{r}/{lora}/result_2.txt')),
    'one_aborted_run': lambda r: abort(f'{r}/{lora}/result_1.txt'),
    'mismatched_batch_sizes': lambda r: replace(f'{r}/{lora}/result_3.txt', '"key": "global_batch_size", "value": 8,', '"key": "global_batch_size", "value": 16,'),
    'duplicate_seed': lambda r: shutil.copyfile(f'{r}/{lora}/result_0.txt', f'{r}/{lora}/result_1.txt'),
    'unknown_benchmark_folder': lambda r: os.rename(f'{r}/{lora}', f'{r}/results/HLS-Gaudi2-PT/llama2_70b_lorra'),
    'unparsable_seed': lambda r: replace(f'{r}/{lora}/result_0.txt', '"key": "seed", "value": 11621,', '"key": "seed", "value": "abc",'),
}

out = []
for name, brk in BREAKS.items():
    work = tempfile.mkdtemp()
    root = os.path.join(work, 'Intel-HabanaLabs')
    shutil.copytree(src, root)
    replace(f'{root}/systems/HLS-Gaudi2-PT.json', '"status": "available"', '"status": "Available on-premise"')
    replace(f'{root}/systems/HLS-Gaudi2-N128-PT.json', '"status": "cloud"', '"status": "Available cloud"')
    brk(root)
    p = subprocess.run(['/usr/bin/python3', '-m', 'mlperf_logging.package_checker', root, 'training', '4.0.0',
                        '--log_output', os.path.join(work, 'package_checker.log')],
                       capture_output=True, text=True)
    err = p.stderr.replace(root, '<TREE>')
    crash = None
    if 'Traceback (most recent call last)' in err:
        crash = err.strip().splitlines()[-1]
    verdict = 'CRASH' if crash else ('PASS' if 'PACKAGE CHECKER FOUND NO ERRORS, SUCCESS !' in err else 'FAIL')
    errors = [l for l in err.splitlines() if l.startswith('ERROR')]
    out.append({'case': name, 'tool': 'package_checker', 'ruleset': '4.0.0', 'verdict': verdict,
                'exit_code': p.returncode, 'crash': crash, 'error_lines': errors})
    shutil.rmtree(work)
    print(name, verdict, crash or '', file=sys.stderr)

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'official_broken.jsonl'), 'w') as f:
    for o in out:
        f.write(json.dumps(o, sort_keys=True) + '\n')
