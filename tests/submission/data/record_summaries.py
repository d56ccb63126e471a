#!/usr/bin/python3
"""Records what the official result_summarizer (mlperf_logging 4.1.59) writes
on the trees in summary_trees/ beside this script and on broken copies of them
(the same breaks as summary_test.cc's HpcWeakScalingAndTrainingPower cases; the
switch logs of training_power_with_switch_logs are made up, to cover sw_*.txt), as
official_summaries.jsonl beside this script.

summary_trees/ holds small subsets of two public MLCommons results trees,
trimmed so the test data stays small (the official outputs are recorded on the
trimmed copies):
  - HPE+LBNL: mlcommons/hpc_results_v3.0 at dfea490b1e7b6545eb5c8b7a4ff9b05021cba098,
    systems perlmutter_128x4 (strong/oc20) and perlmutter_10x128x4_ngc21.09_mxnet
    (weak/cosmoflow);
  - smc-ac-power: mlcommons/training_results_v4.0 at 6fe954378efe4a1a1bd665550b18ff8f26018def,
    system 1xSMC-H100-SXM-80GB, resnet with its power/ logs (the .png plots left out).
Trimming: in every result_*.txt the per-epoch lines (epoch_start/stop,
eval_start/stop, eval_error, eval_accuracy, throughput, tracked_stats, ...)
of all but the last 3 epochs were dropped, and of weights_initialization
and tracked_stats only the first line kept; in every power node_*.txt only
every 6th power_reading line was kept.

Run with the official package importable and Debian's python3-numpy/-scipy/
-pandas/-yaml:
  PYTHONPATH=<mlperf logging checkout> python3 record_summaries.py
Only the outputs are stored; none of the official code.
"""
import json, os, shutil, subprocess, sys, tempfile

here = os.path.dirname(os.path.abspath(__file__))
trees = os.path.join(here, 'summary_trees')
weak = 'results/perlmutter_10x128x4_ngc21.09_mxnet/weak/cosmoflow'
resnet = 'results/1xSMC-H100-SXM-80GB/resnet'

def abort(path):
    t = open(path).read()
    k = t.find('"key": "run_stop"')
    open(path, 'w').write(t[:t.rfind('\n', 0, k) + 1])

SWITCH_LOG = (':::MLLOG {"namespace": "", "time_ms": 1, "event_type": "POINT_IN_TIME", "key": "conversion_eff", '
              '"value": 0.9, "metadata": ""}\n'
              ':::MLLOG {"namespace": "", "time_ms": 2, "event_type": "POINT_IN_TIME", "key": "interconnect_power_est", '
              '"value": 150, "metadata": ""}\n')

def add_switch_logs(r):
    power = f'{r}/{resnet}/power'
    for run in sorted(os.listdir(power)):
        open(f'{power}/{run}/sw_1.txt', 'w').write(SWITCH_LOG)

CASES = [
    ('hpc_strong_and_weak', 'HPE+LBNL', 'hpc', '3.0.0', lambda r: None),
    ('hpc_weak_too_few_models', 'HPE+LBNL', 'hpc', '3.0.0', lambda r: os.remove(f'{r}/{weak}/result_10.txt')),
    ('training_power', 'smc-ac-power', 'training', '4.0.0', lambda r: None),
    ('training_power_one_aborted_run', 'smc-ac-power', 'training', '4.0.0',
     lambda r: abort(f'{r}/{resnet}/result_5797-240517143743970275917_1.txt')),
    ('training_power_with_switch_logs', 'smc-ac-power', 'training', '4.0.0', add_switch_logs),
]

# python3 -m mlperf_logging.result_summarizer, with os.listdir and glob.glob
# sorted so the order of the printed lines is stable (as the parity data's launcher).
LAUNCH = """
import glob, os, runpy, sys
_listdir, _glob = os.listdir, glob.glob
os.listdir = lambda *a, **k: sorted(_listdir(*a, **k))
glob.glob = lambda *a, **k: sorted(_glob(*a, **k))
sys.argv = ['mlperf_logging.result_summarizer'] + sys.argv[1:]
runpy.run_module('mlperf_logging.result_summarizer', run_name='__main__', alter_sys=True)
"""

out = []
for name, tree, usage, ruleset, brk in CASES:
    work = tempfile.mkdtemp()
    root = os.path.join(work, tree)
    shutil.copytree(os.path.join(trees, tree), root)
    brk(root)
    cwd = os.path.join(work, 'cwd')
    os.mkdir(cwd)
    p = subprocess.run([sys.executable, '-c', LAUNCH, root, usage, ruleset, '--csv', 'summary.csv'],
                       cwd=cwd, capture_output=True, text=True)
    outputs = {f: open(os.path.join(cwd, f)).read() for f in sorted(os.listdir(cwd))}
    stdout = p.stdout.replace(root, '<TREE>')
    crash = 'Traceback' in p.stderr or p.returncode != 0
    failed = any(l.startswith('ERROR') or l.startswith('CRITICAL ERROR') for l in stdout.splitlines())
    out.append({'case': name, 'tree': tree, 'usage': usage, 'ruleset': ruleset, 'exit_code': p.returncode,
                'verdict': 'CRASH' if crash else 'FAIL' if failed else 'PASS', 'stdout': stdout,
                'outputs': {f: t.replace(root, '<TREE>') for f, t in outputs.items()}})
    shutil.rmtree(work)

with open(os.path.join(here, 'official_summaries.jsonl'), 'w') as f:
    for o in out:
        f.write(json.dumps(o, sort_keys=True) + '\n')
