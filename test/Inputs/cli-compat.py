"""Differential test of llvm-ir2vec's command line against upstream's.

Usage: cli-compat.py OURS UPSTREAM INPUTS WORKDIR

Runs each command line below with our llvm-ir2vec and with upstream LLVM
22's and requires the same exit status; where upstream succeeds and its
output is data (not help text, which lists our extra options too), the
same standard output and -o file as well. The cases are what a script
written against upstream may do: response files (also nested, also holding
the subcommand), the generic options, each subcommand's --help, libLLVM's
own options, llvm::cl's option syntax, and every kind of usage error.
Prints one line per failure and a summary; exits 1 if anything failed.
"""
import os
import subprocess
import sys

ours, upstream, inputs, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
cfg = os.path.join(inputs, "cfg.ll")
vocab = os.path.join(inputs, "ids2d.json")
mir = os.path.join(inputs, "mir-simple.mir")
mir_vocab = os.path.join(inputs, "mir-dim2.json")


def write(name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


# Response files: options only; one that names the subcommand; one that
# includes another; quoting as llvm::cl's GNU tokenizer reads it.
opts_rsp = write("opts.rsp", f"--ir2vec-vocab-path={vocab}\n--level=bb\n")
sub_rsp = write("sub.rsp", f"embeddings '--ir2vec-vocab-path={vocab}'\n")
nested_rsp = write("nested.rsp", f"@{opts_rsp} --function=f\n")

V = f"--ir2vec-vocab-path={vocab}"
OUT = os.path.join(work, "{who}.out")

# (arguments, what to compare beyond the exit status: "out" standard output,
# "file" the -o file, None nothing).
CASES = [
    # Plain runs.
    (["embeddings", V, cfg], "out"),
    (["embeddings", V, "--level=inst", cfg], "out"),
    (["triplets", cfg], "out"),
    (["entities"], "out"),
    (["entities", cfg], "out"),
    (["triplets", "-o", OUT, cfg], "file"),
    (["embeddings", V, "-o=" + OUT, cfg], "file"),
    # Response files.
    (["embeddings", f"@{opts_rsp}", cfg], "out"),
    ([f"@{sub_rsp}", cfg], "out"),
    (["embeddings", f"@{nested_rsp}", cfg], "out"),
    # llvm::cl syntax: one dash, a separate value, the last of a repeated
    # option wins, "--" ends the options.
    (["embeddings", "-ir2vec-vocab-path", vocab, "-level", "bb", cfg], "out"),
    (["embeddings", V, "--level=inst", "--level=func", cfg], "out"),
    (["embeddings", V, "--function", "add", cfg], "out"),
    (["triplets", "--", cfg], "out"),
    (["embeddings", V, "--ir2vec-kind=flow-aware", "--ir2vec-opc-weight=2",
      "--ir2vec-type-weight", "0.25", "--ir2vec-arg-weight=0.5", cfg], "out"),
    # Options of the top level, which every subcommand takes: upstream's and
    # libLLVM's own (accepted and, in LLVM IR mode, without effect).
    (["triplets", "--mode=llvm", cfg], "out"),
    (["triplets", "--mir2vec-opc-weight=2", cfg], "out"),
    (["triplets", "--threads=2", cfg], "out"),
    (["triplets", "--stop-after=foo", cfg], "out"),
    (["triplets", "-debug-pass=Arguments", cfg], "out"),
    (["triplets", V, cfg], "out"),
    # Machine IR mode, as the subcommands take --mode.
    (["triplets", "--mode=mir", mir], "out"),
    (["entities", "--mode", "mir", mir], "out"),
    (["embeddings", "--mode=mir", f"--mir2vec-vocab-path={mir_vocab}",
      "--level=bb", mir], "out"),
    # The generic options.
    (["--help"], None),
    (["-h"], None),
    (["-help"], None),
    (["--help-hidden"], None),
    (["--help-list"], None),
    (["--help-list-hidden"], None),
    (["--version"], None),
    (["embeddings", "--version"], None),
    (["triplets", "--print-all-options", cfg], "out"),
    (["embeddings", V, "--print-options", cfg], "out"),
    # Each subcommand's help.
    (["embeddings", "--help"], None),
    (["embeddings", "-help"], None),
    (["triplets", "--help"], None),
    (["entities", "--help"], None),
    (["embeddings", "--help-hidden"], None),
    (["triplets", "--help-list"], None),
    # Usage errors: exit 1, as upstream.
    (["embeddings", V, "--bogus", cfg], None),  # unknown option
    (["embeddings", V, "--lev=bb", cfg], None),  # no abbreviations
    (["entities", "--level=bb"], None),  # an embeddings option
    (["entities", "--function=add"], None),
    (["triplets", "--level=bb", cfg], None),
    (["embeddings", V, "--level=foo", cfg], None),  # bad values
    (["embeddings", V, "--ir2vec-kind=fa", cfg], None),
    (["embeddings", V, "--ir2vec-opc-weight=abc", cfg], None),
    (["embeddings", V, "--mode=asm", cfg], None),
    (["triplets", "--mir2vec-kind=other", cfg], None),
    (["triplets", "--threads=x", cfg], None),
    (["embeddings", V, "--level"], None),  # missing value
    (["bogus"], None),  # unknown subcommand
    (["bogus", cfg], None),
    (["-o", OUT, "triplets", cfg], None),  # options before the subcommand
    (["--mode=mir", "triplets", mir], None),
    # Input errors: exit 1.
    (["embeddings", V, os.path.join(work, "missing.ll")], None),
    (["triplets", os.path.join(work, "missing.ll")], None),
    (["embeddings", "--ir2vec-vocab-path=" + os.path.join(work, "no.json"),
      cfg], None),
    (["embeddings", V, "--function=nope", cfg], None),
    (["triplets", f"@{os.path.join(work, 'missing.rsp')}"], None),
]


def run(tool, args, who):
    args = [a.replace("{who}", who) for a in args]
    out_file = OUT.replace("{who}", who)
    if os.path.exists(out_file):
        os.remove(out_file)
    p = subprocess.run([tool] + args, stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=120)
    data = None
    if os.path.exists(out_file):
        with open(out_file, "rb") as f:
            data = f.read()
    return p, data


failed = 0
for args, compare in CASES:
    mine, my_file = run(ours, args, "ours")
    theirs, their_file = run(upstream, args, "upstream")
    problems = []
    if mine.returncode != theirs.returncode:
        problems.append(f"exit {mine.returncode}, upstream "
                        f"{theirs.returncode}")
    if theirs.returncode == 0 and compare == "out" and \
            mine.stdout != theirs.stdout:
        problems.append("standard output differs")
    if theirs.returncode == 0 and compare == "file" and \
            my_file != their_file:
        problems.append("-o file differs")
    if problems:
        failed += 1
        print(f"FAIL: llvm-ir2vec {' '.join(args)}: {'; '.join(problems)}")
        print(f"  ours stderr: {mine.stderr.decode(errors='replace')[:300]!r}")
        print(f"  upstream stderr: "
              f"{theirs.stderr.decode(errors='replace')[:300]!r}")
print(f"cli-compat: {len(CASES)} cases, {failed} failed")
sys.exit(1 if failed else 0)
