# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""ir2vec.mlgo.engine: the two-stage compile, records, resumption,
parameters, the cache, timeouts and failures."""

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
import unittest

import fixtures
from ir2vec.mlgo import engine as eng
from ir2vec.mlgo import objective
from ir2vec.mlgo.pipeline import Config, Pipeline
from ir2vec.mlgo.policy import Stock
from ir2vec.mlgo.toolchain import Toolchain


def fake_clang(path, log, sleep=0.0, fail_on=None):
    """A clang that records each call's input in `log`, sleeps, fails on
    inputs whose path holds `fail_on`, and else runs the real clang."""
    with open(path, "w") as f:
        f.write(f"""#!/bin/sh
for a; do case $a in *.bc) echo "$a" >> {log};; esac; done
case "$*" in *{fail_on or '@@none@@'}*) echo "error: made to fail" >&2; exit 1;; esac
sleep {sleep}
exec {fixtures.CLANG} "$@"
""")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


class EngineTest(fixtures.CorpusTestCase):
    def out(self, name):
        return self.tmp("out-" + name)

    def test_two_stages_give_clangs_object(self):
        # The engine's object is the one `clang -Oz -c module.bc` writes,
        # byte for byte (C and C++ with COMDATs).
        e = eng.Engine(self.out("twostage"))
        for m in ("Oz-preopt/prog/prog", "Oz-preopt/shapes/shapes"):
            rec = e.run([eng.Job(m, self.bc(m))])[0]
            self.assertTrue(rec.ok, rec)
            one = self.tmp("one.o")
            subprocess.run([fixtures.CLANG, "-Oz", "-c", self.bc(m), "-o",
                            one], check=True)
            with open(one, "rb") as a, open(e.path(rec["object"]), "rb") as b:
                self.assertEqual(a.read(), b.read(), m)

    def test_record_holds_job_and_measures(self):
        e = eng.Engine(self.out("record"))
        rec = e.run([eng.Job("Oz-preopt/prog/table",
                             self.bc("Oz-preopt/prog/table"))])[0]
        self.assertEqual(rec["status"], "ok")
        self.assertEqual(rec["job"]["name"], "Oz-preopt/prog/table")
        self.assertEqual(rec["job"]["policy"], {"kind": "stock"})
        text = fixtures.llvm_size_text(e.path(rec["object"]))
        self.assertEqual(rec.text, text)
        self.assertGreater(text, 0)
        self.assertEqual(len(rec["ir"]), 64)

    def test_other_parameters_are_refused(self):
        out = self.out("params")
        eng.Engine(out, {"budget": 40})
        eng.Engine(out, {"budget": 40})  # the same: fine
        with self.assertRaises(eng.EngineError) as cm:
            eng.Engine(out, {"budget": 20})
        self.assertIn("other params", str(cm.exception))
        self.assertIn('{"budget": 40}', str(cm.exception))
        self.assertIn("use another output directory", str(cm.exception))

    def test_other_compiler_is_refused(self):
        out = self.out("compiler")
        eng.Engine(out)
        wrapper = self.tmp("clang-other")
        with open(wrapper, "w") as f:
            f.write(f'#!/bin/sh\ncase "$1" in --version) echo "other clang '
                    f'9";; *) exec {fixtures.CLANG} "$@";; esac\n')
        os.chmod(wrapper, 0o755)
        with self.assertRaises(eng.EngineError) as cm:
            eng.Engine(out, tools=Toolchain(clang=wrapper))
        self.assertIn("other compiler", str(cm.exception))

    def test_cache_hits_and_gives_the_same_record(self):
        m = "Oz-preopt/prog/prog"
        e = eng.Engine(self.out("cache"))
        stock, same_ir = e.run([eng.Job(m, self.bc(m)),
                                eng.Job(m, self.bc(m),
                                        Pipeline(Config.oz()))])
        self.assertEqual(stock["cache"], "miss")
        self.assertEqual(same_ir["cache"], "hit")
        self.assertNotIn("codegen", same_ir["seconds"])
        self.assertEqual(same_ir["ir"], stock["ir"])
        self.assertEqual(same_ir["object"], stock["object"])
        # Measured afresh, without the cache, the record is the same.
        fresh = eng.Engine(self.out("cache-fresh")).run(
            [eng.Job(m, self.bc(m), Pipeline(Config.oz()))])[0]
        self.assertEqual(fresh["cache"], "miss")
        for k in ("text", "ir", "status"):
            self.assertEqual(fresh[k], same_ir[k], k)
        # Another codegen flag is another cache entry.
        outl = e.run([eng.Job(m, self.bc(m),
                              Stock(codegen=["-mllvm",
                                             "-enable-machine-outliner"]))])[0]
        self.assertEqual(outl["ir"], stock["ir"])
        self.assertEqual(outl["cache"], "miss")

    def test_a_job_given_twice_runs_once(self):
        # Copies of one job would share its working directory: with two
        # workers one would delete the other's files and record a failure.
        log = self.tmp("twice.log")
        clang = fake_clang(self.tmp("clang-twice"), log, sleep=0.2)
        e = eng.Engine(self.out("twice"), tools=Toolchain(clang=clang),
                       workers=2)
        m = "Oz-preopt/shapes/shapes"
        job = eng.Job(m, self.bc(m), Pipeline(Config.oz()))
        seen = []
        recs = e.run([job] * 4, on_record=lambda j, r: seen.append(r))
        self.assertTrue(all(r.ok for r in recs), recs)
        self.assertEqual(len({r["object"] for r in recs}), 1)
        self.assertEqual(len(seen), 4)
        with open(log) as f:  # one code generation (opt optimises)
            self.assertEqual(len(f.read().splitlines()), 1)

    def test_two_processes_run_one_job_at_once(self):
        # Two recipes on one output directory: each run of the job works in
        # a directory of its own, so both come out ok with the same object.
        log = self.tmp("two.log")
        clang = fake_clang(self.tmp("clang-two"), log, sleep=1)
        out = self.out("two")
        m = "Oz-preopt/prog/table"
        code = (f"from ir2vec.mlgo import engine as eng\n"
                f"from ir2vec.mlgo.toolchain import Toolchain\n"
                f"r = eng.Engine({out!r}, tools=Toolchain(clang={clang!r}))"
                f".run([eng.Job({m!r}, {self.bc(m)!r})])[0]\n"
                f"print(r['status'], r.get('error', ''), r.get('text'))\n")
        procs = [subprocess.Popen([sys.executable, "-c", code],
                                  stdout=subprocess.PIPE, text=True)
                 for _ in range(2)]
        outs = [p.communicate()[0].strip() for p in procs]
        self.assertEqual(outs[0], outs[1], outs)
        self.assertTrue(outs[0].startswith("ok"), outs)
        self.assertEqual(os.listdir(os.path.join(out, "tmp")), [])

    def test_a_killed_runs_working_directory_is_removed(self):
        m = "Oz-preopt/prog/prog"
        job = eng.Job(m, self.bc(m))
        e = eng.Engine(self.out("leftover"))
        gone = subprocess.Popen(["true"])
        gone.wait()  # a process that no longer exists
        host = socket.gethostname().replace(".", "_")
        left = os.path.join(e.out, "tmp", f"{job.id}.{host}.{gone.pid}.x")
        alive = os.path.join(e.out, "tmp", f"{job.id}.{host}.{os.getpid()}.y")
        for d in (left, alive):
            os.makedirs(d)
        self.assertTrue(e.run([job])[0].ok)
        self.assertFalse(os.path.exists(left))
        self.assertTrue(os.path.exists(alive))  # a live run's: kept

    def test_failure_is_recorded_and_alone(self):
        log = self.tmp("fail.log")
        clang = fake_clang(self.tmp("clang-fail"), log, fail_on="table")
        e = eng.Engine(self.out("fail"), tools=Toolchain(clang=clang),
                       workers=2)
        mods = sorted(fixtures.MODULES)
        recs = e.run([eng.Job(m, self.bc(m)) for m in mods])
        by = dict(zip(mods, recs))
        bad = by["Oz-preopt/prog/table"]
        self.assertEqual(bad["status"], "failed")
        self.assertEqual(bad["stage"], "optimize")
        self.assertEqual(bad["error"], "error: made to fail")
        self.assertTrue(by["Oz-preopt/prog/prog"].ok)
        self.assertTrue(by["Oz-preopt/shapes/shapes"].ok)
        # A failure is a record too: a rerun does not compile again.
        os.remove(log)
        e.run([eng.Job(m, self.bc(m)) for m in mods])
        self.assertFalse(os.path.exists(log))

    def test_a_stage_that_writes_nothing_fails_naming_it(self):
        # A compiler that exits 0 at code generation without an object.
        clang = self.tmp("clang-silent")
        with open(clang, "w") as f:
            f.write(f"""#!/bin/sh
case "$*" in *-disable-llvm-passes*) exit 0;; esac
exec {fixtures.CLANG} "$@"
""")
        os.chmod(clang, os.stat(clang).st_mode | stat.S_IXUSR)
        e = eng.Engine(self.out("silent"), tools=Toolchain(clang=clang))
        m = "Oz-preopt/prog/table"
        rec = e.run([eng.Job(m, self.bc(m))])[0]
        self.assertEqual(rec["status"], "failed")
        self.assertEqual(rec["stage"], "codegen")
        self.assertEqual(rec["error"], "no object written")
        # The record keeps the command its first stage ran.
        self.assertEqual(rec["command"][0], clang)
        self.assertIn(self.bc(m), rec["command"])

    def test_timeout_ends_the_job(self):
        clang = fake_clang(self.tmp("clang-slow"), self.tmp("slow.log"),
                           sleep=30)
        e = eng.Engine(self.out("timeout"), tools=Toolchain(clang=clang),
                       timeout=1)
        start = time.monotonic()
        rec = e.run([eng.Job("Oz-preopt/prog/table",
                             self.bc("Oz-preopt/prog/table"))])[0]
        self.assertLess(time.monotonic() - start, 25)
        self.assertEqual(rec["status"], "timeout")
        self.assertEqual(rec["stage"], "optimize")
        self.assertEqual(os.listdir(os.path.join(e.out, "tmp")), [])

    def test_resumes_after_a_kill(self):
        # `collect` through a clang that takes 1 s a call, killed once the
        # first module is recorded; the rerun compiles only the others.
        out, log = self.out("kill"), self.tmp("kill.log")
        clang = fake_clang(self.tmp("clang-kill"), log, sleep=1)
        argv = [sys.executable, "-m", "ir2vec.mlgo", "collect", "--corpus",
                self.corpus, "--out", out, "--workers", "1", "--clang",
                clang]
        p = subprocess.Popen(argv, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True)
        records = os.path.join(out, "records")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            found = [f for _, _, fs in os.walk(records) for f in fs
                     if f.endswith(".json")] if os.path.isdir(records) else []
            if found:
                break
            time.sleep(0.1)
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        self.assertEqual(len(found), 1, "one record before the kill")
        with open(log) as f:
            before = f.read().splitlines()
        done = subprocess.run(argv, capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(json.loads(done.stdout)["ok"], 3)
        with open(log) as f:
            after = f.read().splitlines()[len(before):]
        with open(os.path.join(records, found[0][:2], found[0])) as f:
            recorded = json.load(f)["job"]["bitcode"]
        self.assertNotIn(recorded, after)  # not compiled again
        self.assertEqual(len({a for a in after if "corpus" in a}), 2)


class TextSizeTest(unittest.TestCase):
    """objective.text_size reads ELF section headers itself: llvm-size's
    numbers for 32- and 64-bit, little- and big-endian objects, one with
    more sections than the ELF header can count, and (through llvm-size)
    other formats."""

    def test_text_size_is_llvm_sizes(self):
        tmp = fixtures.TempDir()
        self.addCleanup(tmp.cleanup)
        src = tmp("f.c")  # no header: every target compiles it
        with open(src, "w") as f:
            f.write("static int g(int x) { return x * x + 3; }\n"
                    "int f(int x) { return g(x) + g(x + 1); }\n"
                    "int h(int x) { return x ? h(x - 1) * 2 : 1; }\n")
        objects = []
        for target in ("x86_64-linux-gnu", "i386-linux-gnu",
                       "s390x-linux-gnu", "powerpc-linux-gnu",
                       "aarch64-linux-gnu", "x86_64-apple-darwin"):
            obj = tmp(target + ".o")
            subprocess.run([fixtures.CLANG, "--target=" + target, "-Oz",
                            "-ffunction-sections", "-c", src, "-o", obj],
                           check=True)
            objects.append(obj)
        asm = tmp("many.s")
        with open(asm, "w") as f:  # 65,300 > 0xff00 sections
            f.writelines(f'.section .text.f{i},"ax",@progbits\nret\n'
                         for i in range(65300))
        objects.append(tmp("many.o"))
        subprocess.run([fixtures.CLANG, "--target=x86_64-linux-gnu", "-c",
                        asm, "-o", objects[-1]], check=True)
        for obj in objects:
            self.assertEqual(objective.text_size(obj),
                             fixtures.llvm_size_text(obj), obj)
        self.assertEqual(objective.text_size(objects[-1]), 65300)


if __name__ == "__main__":
    unittest.main()
