#!/usr/bin/env python3
# Where the functional ResNet's host time goes, by category (GEMM and
# convolution, batch norm, elementwise, pooling, loss, collectives, optimizer,
# data, evaluation), from `perf script` output of a run recorded with DWARF
# call graphs. Each sample goes to the first category a frame of its stack
# matches, leaf first (evaluation: any frame under CountCorrect); oneDNN's JIT
# code (perf-<pid>.map, libdnnl) counts as convolution. Usage:
#
#   perf record -F 200 --call-graph dwarf,8192 -o perf.data -- \
#       podbench run resnet --mode functional --slice tpu-v3-8 --preset functional \
#       --runs 1 --seed 3 --set max_epochs=4 --set functional_target=1 --db /tmp/p.db
#   perf script -i perf.data | python3 scripts/profile_functional_step.py [-v] [-c CATEGORY]
#
# -v lists the leaf frames of unclassified samples; -c CATEGORY lists those of a category.
import re, sys, collections
RULES = [  # (category, regex on a frame), checked from the leaf up; first match wins
    ("evaluation", r"CountCorrect"),
    ("conv+gemm", r"perf-[0-9]+\.map|libdnnl|Conv2dForward|Conv2dBackwardData|Conv2dBackwardFilter|kernels::RunGemm|GemmF32|GemmBf16|onednn::"),
    ("batch norm", r"BatchNormForwardTraining|BatchNormBackward|BatchNormForwardInference"),
    ("pooling", r"MaxPool|AvgPool"),
    ("loss", r"SoftmaxCrossEntropy"),
    ("elementwise", r"kernels::Relu|kernels::ReluGrad|kernels::Add\b|kernels::Axpy|kernels::Scale|AddBias|BiasGrad|std::fill|FunctionalResNet::Backward|FunctionalResNet::Forward"),
    ("collectives", r"topology::|ReduceBn|FunctionalResNet::Sync|barrier"),
    ("optimizer", r"LarsUpdate|SgdMomentum|FunctionalResNet::Update"),
    ("data", r"data::|SyntheticImage|InputPipeline|tjDecompress|turbojpeg|Generate"),
]
# Samples whose leaf is the scheduler or a yield belong to waiting.
WAIT = r"sched_yield|__schedule|finish_task_switch|futex|pthread_cond|do_idle"
cats = collections.Counter()
others = collections.Counter()
total = 0
frames = []
def flush():
    global total, frames
    if not frames:
        return
    total += 1
    cat = "evaluation" if any(re.search(r"CountCorrect|Evaluate", f) for f in frames) else None
    for f in (frames if cat is None else []):
        for name, rx in RULES:
            if re.search(rx, f):
                cat = name
                break
        if cat:
            break
    if cat is None:
        cat = "wait/sched" if re.search(WAIT, frames[0]) else "other"
    cats[cat] += 1
    if cat == "other" or ("-c" in sys.argv and cat == sys.argv[sys.argv.index("-c") + 1]):
        others[frames[0][:90]] += 1
    frames = []
for line in sys.stdin:
    if not line.strip():
        flush()
        continue
    if line[0] not in " \t":
        flush()
        continue
    parts = line.strip().split(None, 1)
    if len(parts) == 2:
        frames.append(parts[1])
flush()
for c, n in cats.most_common():
    print(f"{c:<14} {100.0*n/total:6.1f}%")
print(f"{'samples':<14} {total}")
if "-v" in sys.argv:
    for f, n in others.most_common(15):
        print(f"  other: {100.0*n/total:5.1f}% {f}")
