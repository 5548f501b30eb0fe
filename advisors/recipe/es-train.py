#!/usr/bin/env python3
# ===- es-train.py - Inlining for size by evolution strategies ------------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
"""Trains the inline advisor's model on the objective itself: MLGO's
blackbox evolution strategies (irtk-train es-start/es-candidates/es-update,
training/include/irtk/training/Evolution.h) over a warm-start model, each
candidate judged by compiling the corpus's modules with it at -Oz.

  es-train.py --corpus C --out O --model WARM.json [--steps N]
              [--perturbations N] [--sigma X] [--step-size X] [--seed N]
              [--relative-noise] [--residual [--keep-hidden]]
              [--layers L,...] [--shared DIR]
              [--sample K] [--modules-per-step M] [--jobs N]
              [--scheduler ADDR | --workers N] [--clang C] [--plugin P]
              [--train irtk-train]

--residual starts from exactly -Oz rather than from WARM's decisions: the
start is WARM's network (its inputs, their normalisation and its layer
sizes) with every weight and bias 0 but a path that passes the
inlining_default feature through the first hidden unit to a logit of -2
or +2 (O/residual.json): it decides as the stock heuristic until the
perturbations move the other weights, so every step departs from -Oz
where the reward says so (use absolute noise, not --relative-noise,
which would leave the zero weights at zero). With --keep-hidden, the hidden
units but the path's keep WARM's weights, and the last layer, which reads
them, starts at 0 but for the path: `--layers last` then searches a few
dozen weights over WARM's learned features rather than all of them.

--modules-per-step M judges each step's candidates on M of the modules
only, drawn afresh each step (the same M for every candidate of the step,
so that the antithetic pairs compare on the same code; the draw is fixed by
--seed and the step): a step costs M / modules of a full one, as MLGO's
blackbox trainer samples modules per step.
A candidate's reward is the mean over the (step's) modules of
1 - (text + 0.01) / (text at -Oz + 0.01), .text bytes of the module's
object (a compile that fails scores -1). With --shared DIR, text is what
the package's link keeps of the module: its .text less the C++ inline
functions that another object of the package carries at stock (counted in
DIR/<package>.json by search --kind edge --linked). Every compile is
recorded (recipelib.compile_recorded) and the state is one checkpoint
written after each step, so a run killed anywhere continues where it
stopped, to the same result, and a rerun with other parameters is
refused. The compiles of a step run on --jobs local processes, or as tasks
on a Dask cluster (--scheduler ADDR, or --workers N for a local one):
adding machines adds throughput.

Records under O: search.json (the parameters), checkpoint.json (the state
after the last finished step), runs/oz/<module>.status (-Oz's .text),
steps/<k>/candidate-<c>.json and runs/<k>/<c>/<module>.status (step k's
models and their compiles), steps/<k>/rewards.txt, progress.tsv (one line
per finished step: step, mean and best reward of its candidates) and
final/current.json, the model after the last step (printed at the end).
"""

import argparse
import contextlib
import functools
import json
import math
import os
import random
import shutil
import subprocess
import sys

import recipelib

# irtk-train: this checkout's build, else the one on PATH (--train).
TRAIN = os.path.join(recipelib.ROOT, "build", "bin", "irtk-train")


def compile_text(args, base, model, module, shared=None, funcs=False):
    """.text bytes of `module` compiled at -Oz, with `model` deciding the
    inlining (None: stock), recorded under `base`; None if it failed. With
    `shared` (a function of the module's stock functions, see
    module_shared), the linked objective instead: the .text less the C++
    inline functions that another object of the package carries. `funcs`
    keeps the object's functions (llvm-nm -S) as base.funcs."""
    def command(tmp):
        argv = [args.clang, "-Oz", "-c",
                os.path.join(args.corpus, module + ".bc"), "-o", tmp[".o"]]
        if model:
            argv += ["-fpass-plugin=" + args.plugin,
                     "-mllvm", "-irtk-inline-policy=model",
                     "-mllvm", "-irtk-inline-model=" + model]
        if funcs:
            return recipelib.then_functions(argv, tmp[".o"], tmp[".funcs"])
        return argv

    def measure(tmp):
        text = recipelib.text_size(tmp[".o"])
        if shared is None:
            return text
        if funcs:
            with open(tmp[".funcs"]) as f:
                functions = recipelib.nm_functions(f)
        else:
            functions = recipelib.object_functions(tmp[".o"])
        return recipelib.linked_objective(text, functions, shared(functions))

    done = recipelib.compile_recorded(
        base, command, products=(".funcs",) if funcs else (),
        scratch=(".o",), measure=measure)
    return done.value if done.ok else None


def module_shared(args, module):
    """None without --shared; else a function of the stock object's
    functions: the C++ inline functions that another object of the package
    carries at stock (DIR/<package>.json, counted by `search --kind edge
    --linked`), which its link keeps whatever this module does."""
    if not args.shared:
        return None
    path = os.path.join(args.shared, os.path.dirname(module) + ".json")
    with open(path) as f:
        counts = json.load(f)

    def shared(stock):
        return recipelib.shared_inline(
            counts, recipelib.comdat(stock))
    return shared


def oz_task(args, module):
    shared = module_shared(args, module)
    return compile_text(args, os.path.join(args.out, "runs", "oz", module),
                        None, module, shared, funcs=shared is not None)


def candidate_task(args, step, item):
    c, module = item
    shared = module_shared(args, module)
    if shared:
        oz = os.path.join(args.out, "runs", "oz", module + ".funcs")
        with open(oz) as f:
            stock = shared(recipelib.nm_functions(f))
        shared = lambda _: stock  # noqa: E731
    return compile_text(
        args, os.path.join(args.out, "runs", str(step), str(c), module),
        os.path.join(args.out, "steps", str(step), f"candidate-{c}.json"),
        module, shared)


def reward(text, oz):
    if text is None:
        return -1.0
    return 1 - (text + 0.01) / (oz + 0.01)


def residual_model(warm, keep_hidden=False):
    """WARM's network deciding exactly as inlining_default: every weight
    and bias 0 but unit 0 of each hidden layer, which carries the default
    decision (0 or 1) forward, and the logit 4 * unit - 2. With
    `keep_hidden`, the other hidden units keep WARM's weights (less what
    they took from unit 0): the last layer, 0 but for the path, can then
    learn from WARM's features."""
    m = json.loads(json.dumps(warm))
    names = [i["name"] for i in m["inputs"]]
    if "inlining_default" not in names:
        raise SystemExit("--residual: the model does not read inlining_default")
    # The first layer's column of inlining_default, after normalisation.
    col = 0
    for i in m["inputs"][:names.index("inlining_default")]:
        col += len(i["mean"])
    d = m["inputs"][names.index("inlining_default")]
    lo, hi = (0 - d["mean"][0]) / d["scale"][0], (1 - d["mean"][0]) / d["scale"][0]
    layers = m["layers"]
    if len(layers) < 2 or any(l["activation"] != "relu" for l in layers[:-1]):
        raise SystemExit("--residual: the model needs relu hidden layers")
    for li, layer in enumerate(layers):
        hidden = li < len(layers) - 1
        if keep_hidden and hidden:
            # Unit 0 is the path; no other unit reads the path's unit.
            layer["weights"][0] = [0.0] * len(layer["weights"][0])
            layer["bias"][0] = 0.0
            if li > 0:
                for row in layer["weights"]:
                    row[0] = 0.0
        else:
            layer["weights"] = [[0.0] * len(r) for r in layer["weights"]]
            layer["bias"] = [0.0] * len(layer["bias"])
        if li == 0:
            # unit 0 = relu((x - lo) / (hi - lo)): 0 or 1.
            layer["weights"][0][col] = 1.0 / (hi - lo)
            layer["bias"][0] = -lo / (hi - lo)
        elif li < len(layers) - 1:
            layer["weights"][0][0] = 1.0
        else:
            layer["weights"][0][0] = 4.0
            layer["bias"][0] = -2.0
    # Neither a margin nor support boxes (irtk-train fit --support, which
    # need the margin): the start decides as stock by its weights alone,
    # and where training departs from it is the perturbations' to find.
    m["output"].pop("default_margin", None)
    m["output"].pop("support", None)
    m["training"] = {"tool": "es-train.py --residual" +
                     (" --keep-hidden" if keep_hidden else ""),
                     "from": warm.get("training", {})}
    return m


def train(argv):
    """Runs irtk-train; its refusal (a model or checkpoint it will not
    write, a file it cannot use) ends the run with its one error line."""
    p = subprocess.run([TRAIN] + argv, stderr=subprocess.PIPE, text=True)
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    if p.returncode == 0:
        for line in lines:  # warnings
            print(line, file=sys.stderr, flush=True)
        return
    raise SystemExit(lines[-1] if lines else
                     f"irtk-train {argv[0]} failed (exit {p.returncode})")


def check_options(args):
    """The options irtk-train would refuse, refused before anything is
    recorded (a NaN in search.json would refuse every later run)."""
    if args.steps < 0:
        raise SystemExit("--steps must be 0 or more")
    if args.perturbations < 2 or args.perturbations % 2:
        raise SystemExit("--perturbations must be even and at least 2")
    for name, value in (("--sigma", args.sigma),
                        ("--step-size", args.step_size)):
        if not (math.isfinite(value) and value > 0):
            raise SystemExit(f"{name} must be a positive number, not {value}")
    if args.seed < 0:
        raise SystemExit("--seed must be 0 or more")


def find_train(given):
    """The irtk-train to run: --train, else this checkout's build, else the
    one on PATH."""
    if given:
        return given
    if os.path.exists(TRAIN):
        return TRAIN
    return shutil.which("irtk-train") or TRAIN


def read_step(checkpoint):
    with open(checkpoint) as f:
        return json.load(f)["step"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    recipelib.add_arguments(p)
    p.add_argument("--model", required=True,
                   help="the warm-start model (irtk-mlp, inline advisor)")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--perturbations", type=int, default=100)
    # A warm start's (docs/InlineTraining.md); MLGO's cold start: 0.5, 0.5.
    p.add_argument("--sigma", type=float, default=0.025)
    p.add_argument("--step-size", type=float, default=0.01)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--modules-per-step", type=int, default=0,
                   help="judge each step on this many modules, drawn per "
                   "step (default: all)")
    p.add_argument("--relative-noise", action="store_true")
    p.add_argument("--residual", action="store_true",
                   help="start from exactly -Oz (see above)")
    p.add_argument("--keep-hidden", action="store_true",
                   help="with --residual: keep the warm model's hidden "
                   "layers (see above)")
    p.add_argument("--layers", help="perturb only these layers (irtk-train "
                   "es-start --layers: indices from 0, or 'last')")
    p.add_argument("--shared", help="reward what the package's link keeps: "
                   "the inline functions shared at stock (a search's "
                   "OUT/shared, search --kind edge --linked)")
    # As collect-inline.sh: $CLANG, else clang-22.
    p.add_argument("--clang", default=os.environ.get("CLANG", "clang-22"))
    p.add_argument("--train", help="the irtk-train to run (default: this "
                   "checkout's build/bin/irtk-train, else PATH's)")
    p.add_argument("--scheduler", help="a Dask scheduler's address")
    p.add_argument("--workers", type=int,
                   help="run the compiles on a local Dask cluster of this "
                   "many workers")
    args = p.parse_args()
    global TRAIN
    TRAIN = find_train(args.train)
    args.out = os.path.abspath(args.out)
    args.model = os.path.abspath(args.model)
    if args.shared:
        args.shared = os.path.abspath(args.shared)
    warm = args.model
    check_options(args)
    if args.keep_hidden and not args.residual:
        raise SystemExit("--keep-hidden needs --residual")
    if args.residual:
        with open(args.model) as f:
            start = residual_model(json.load(f), args.keep_hidden)
        args.model = os.path.join(args.out, "residual.json")
        if not os.path.exists(args.model):
            recipelib.write_file(args.model, json.dumps(start))
    modules = recipelib.search_modules(args)
    if not 0 <= args.modules_per_step <= len(modules):
        raise SystemExit(f"--modules-per-step must be 0 to {len(modules)} "
                         "(the modules of the corpus sample)")
    # What the records depend on (--steps and --jobs do not: a longer run
    # continues a shorter one).
    params = {
        "corpus": os.path.abspath(args.corpus), "sample": args.sample,
        "model": args.model, "perturbations": args.perturbations,
        "sigma": args.sigma, "step size": args.step_size,
        "seed": args.seed, "relative noise": args.relative_noise,
        "residual from": warm if args.residual else None,
        "clang": args.clang, "modules": modules,
        # Only when given: the records of earlier runs stay valid.
        **({"shared": args.shared} if args.shared else {}),
        **({"modules per step": args.modules_per_step}
           if args.modules_per_step else {}),
        **({"keep hidden": True} if args.keep_hidden else {}),
        **({"layers": args.layers} if args.layers else {})}
    # Another run's records are refused before anything is written; a
    # start irtk-train refuses (a sigma whose candidates overflow, say)
    # records nothing.
    if os.path.exists(os.path.join(args.out, recipelib.PARAMETERS)):
        recipelib.check_parameters(args.out, params)
    checkpoint = os.path.join(args.out, "checkpoint.json")
    if not os.path.exists(checkpoint):
        os.makedirs(args.out, exist_ok=True)
        es = ["--perturbations", str(args.perturbations),
              "--sigma", repr(args.sigma), "--step-size", repr(args.step_size),
              "--seed", str(args.seed)]
        train(["es-start", "--model", args.model, "-o", checkpoint] + es +
              (["--relative-noise"] if args.relative_noise else []) +
              (["--layers", args.layers] if args.layers else []))
    recipelib.check_parameters(args.out, params)

    with contextlib.ExitStack() as stack:
        client = None
        if args.scheduler or args.workers:
            client = stack.enter_context(recipelib.dask_client(
                args.scheduler, args.workers or os.cpu_count() or 1))
        evolve(args, modules, functools.partial(
            recipelib.parallel_map, jobs=args.jobs, client=client))


def step_modules(args, modules, step):
    """The modules that judge step `step`'s candidates: all of them, or
    --modules-per-step drawn by a generator seeded with the seed and the
    step (in corpus order), so that a resumed run draws the same."""
    if not args.modules_per_step:
        return modules
    rng = random.Random(f"es-train {args.seed} {step}")
    chosen = set(rng.sample(range(len(modules)), args.modules_per_step))
    return [m for i, m in enumerate(modules) if i in chosen]


def warn_disappeared(args, modules, gone):
    """Says once per module that its bitcode is gone since the run started:
    its compiles fail, and every candidate scores -1 on it."""
    for m in modules:
        path = os.path.join(args.corpus, m + ".bc")
        if m not in gone and not os.path.exists(path):
            gone.add(m)
            print(f"warning: {path}: the module disappeared during the run; "
                  "its compiles fail (reward -1)", file=sys.stderr, flush=True)


def evolve(args, modules, run):
    """The steps still to do, then the progress table and the model; `run`
    maps a task over items (locally or on Dask)."""

    oz = run(functools.partial(oz_task, args), modules)
    failed = [m for m in modules if oz.get(m) is None]
    if failed:
        raise SystemExit(f"{failed[0]}: the -Oz compile failed "
                         f"({len(failed)} modules); see its record")

    checkpoint = os.path.join(args.out, "checkpoint.json")
    gone = set()
    for step in range(args.steps):
        if read_step(checkpoint) > step:
            continue
        out = os.path.join(args.out, "steps", str(step))
        train(["es-candidates", "--model", args.model,
               "--checkpoint", checkpoint, "-o", out])
        judged = step_modules(args, modules, step)
        warn_disappeared(args, judged, gone)
        items = [(c, m) for c in range(args.perturbations) for m in judged]
        texts = run(functools.partial(candidate_task, args, step), items)
        rewards = [sum(reward(texts.get((c, m)), oz[m]) for m in judged) /
                   len(judged) for c in range(args.perturbations)]
        recipelib.write_file(os.path.join(out, "rewards.txt"),
                             "".join(f"{r!r}\n" for r in rewards))
        train(["es-update", "--quiet", "--checkpoint", checkpoint,
               "--model", args.model,
               "--rewards", os.path.join(out, "rewards.txt")])
        line = (f"step {step + 1}/{args.steps}: mean reward "
                f"{sum(rewards) / len(rewards):+.5f}, best {max(rewards):+.5f}")
        print(line, file=sys.stderr, flush=True)

    # The progress table of every finished step, and the model.
    rows = []
    step = 0
    while os.path.exists(os.path.join(args.out, "steps", str(step),
                                      "rewards.txt")):
        with open(os.path.join(args.out, "steps", str(step),
                               "rewards.txt")) as f:
            rs = [float(x) for x in f.read().split()]
        rows.append(f"{step + 1}\t{sum(rs) / len(rs):.6f}\t{max(rs):.6f}\n")
        step += 1
    recipelib.write_file(os.path.join(args.out, "progress.tsv"),
                         "step\tmean reward\tbest reward\n" + "".join(rows))
    final = os.path.join(args.out, "final")
    train(["es-candidates", "--model", args.model, "--checkpoint",
           checkpoint, "-o", final])
    print(os.path.join(final, "current.json"))


if __name__ == "__main__":
    main()
