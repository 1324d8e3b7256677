#!/usr/bin/env python3
"""generate.py never destroys a file: an output that is one of its inputs (by any path: symlink,
hard link, another spelling) is refused before anything is written; a write that fails half-way
(the file size limit, as a full disk would) or is stopped by SIGTERM / SIGINT leaves the previous
file as it was and no temporary file beside it (platforms/output_file.py). Standard library only.

  python3 platforms/tests/test_output_file.py        (ctest runs it)
"""
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PLATFORMS = os.path.dirname(HERE)
GENERATE = os.path.join(PLATFORMS, "generate.py")
ROOT = os.path.dirname(PLATFORMS)
CALIBRATED = os.path.join(ROOT, "experiments", "results", "sim_vs_real", "calibrated_2.xml")
OLD = "the previous file\n"


def generate(*args, cwd, limit_bytes=None):
    def limit():  # writes past limit_bytes fail with EFBIG (Python ignores SIGXFSZ)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    return subprocess.run([sys.executable, GENERATE, *args], capture_output=True, text=True, cwd=cwd, timeout=120,
                          preexec_fn=limit if limit_bytes else None)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


class Tmp(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def path(self, name):
        return os.path.join(self.dir, name)

    def assertNoTemporaryFiles(self):
        self.assertEqual(sorted(f for f in os.listdir(self.dir) if ".tmp." in f), [])


class OutputIsAnInput(Tmp):
    def test_every_path_to_the_description_is_refused_and_it_stays_whole(self):
        shutil.copy(os.path.join(PLATFORMS, "descriptions", "dgx_h100.json"), self.path("d.json"))
        before = read(self.path("d.json"))
        os.symlink("d.json", self.path("symlink.json"))
        os.link(self.path("d.json"), self.path("hardlink.json"))
        os.mkdir(self.path("sub"))
        for description, output in (("d.json", "d.json"), ("d.json", "symlink.json"), ("d.json", "hardlink.json"),
                                    ("d.json", "./sub/../d.json"), ("symlink.json", "d.json")):
            with self.subTest(output=output):
                r = generate("--description", description, "-o", output, cwd=self.dir)
                self.assertEqual((r.returncode, r.stdout), (1, ""))
                self.assertEqual(r.stderr, f"generate.py: error: output {output} is the same file as input "
                                           f"{description}: writing it would destroy the input\n")
                self.assertEqual(read(self.path("d.json")), before)

    def test_the_calibrated_node_is_an_input_too(self):
        shutil.copy(CALIBRATED, self.path("cal.xml"))
        before = read(self.path("cal.xml"))
        write(self.path("d.json"), '{"name": "c", "node": {"calibrated": "cal.xml"}, "network": {"nodes": 1, '
                                   '"topology": "fat_tree2", "nodes_per_leaf": 1, "switch_latency": 0}}')
        r = generate("--description", "d.json", "-o", "cal.xml", cwd=self.dir)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, "generate.py: error: output cal.xml is the same file as input "
                                   f"{os.path.join(self.dir, 'cal.xml')}: writing it would destroy the input\n")
        self.assertEqual(read(self.path("cal.xml")), before)

    def test_an_output_that_cannot_be_written_is_refused_before_the_work(self):
        r = generate("--platform", "s822lc", "--nodes", "2", "-o", "no/such/dir/x.xml", cwd=self.dir)
        self.assertEqual(r.stderr, "generate.py: error: cannot write no/such/dir/x.xml: directory no/such/dir: "
                                   "No such file or directory\n")
        r = generate("--platform", "s822lc", "--nodes", "2", "-o", self.dir, cwd=self.dir)
        self.assertEqual(r.stderr, f"generate.py: error: cannot write {self.dir}: {self.dir} is a directory\n")


class AllOrNothing(Tmp):
    def test_a_failed_write_leaves_the_previous_file(self):
        write(self.path("p.xml"), OLD)
        r = generate("--platform", "dgx_h100", "--nodes", "4", "-o", "p.xml", cwd=self.dir, limit_bytes=4096)
        self.assertEqual((r.returncode, r.stdout), (1, ""))
        self.assertEqual(r.stderr, "generate.py: error: cannot write p.xml: File too large "
                                   "(the previous file is left as it was)\n")
        self.assertEqual(read(self.path("p.xml")), OLD)
        self.assertNoTemporaryFiles()

    def test_a_failed_write_of_a_new_file_leaves_nothing(self):
        r = generate("--platform", "dgx_h100", "--nodes", "4", "-o", "new.xml", cwd=self.dir, limit_bytes=4096)
        self.assertEqual(r.stderr, "generate.py: error: cannot write new.xml: File too large\n")
        self.assertEqual(os.listdir(self.dir), [])

    def test_a_replaced_file_keeps_its_mode_and_the_link_stays_a_link(self):
        write(self.path("p.xml"), OLD)
        os.chmod(self.path("p.xml"), 0o640)
        os.symlink("p.xml", self.path("link.xml"))
        r = generate("--platform", "s822lc", "--nodes", "2", "-o", "link.xml", cwd=self.dir)
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        self.assertTrue(os.path.islink(self.path("link.xml")))
        self.assertTrue(read(self.path("p.xml")).startswith('<?xml version="1.0"?>'))
        self.assertEqual(stat.S_IMODE(os.stat(self.path("p.xml")).st_mode), 0o640)
        self.assertNoTemporaryFiles()

    def test_a_file_that_is_not_regular_is_written_in_place(self):
        r = generate("--platform", "s822lc", "--nodes", "2", "-o", "/dev/null", cwd=self.dir)
        self.assertEqual((r.returncode, r.stderr), (0, ""))


# Stopped by a signal halfway through a write: the block writes, says so, then waits for the signal.
STOPPED = """
import sys, time
sys.path.insert(0, sys.argv[1])
from output_file import AtomicOutput
with AtomicOutput(sys.argv[2]) as out:
    out.write("half of the new text\\n")
    print("writing", flush=True)
    time.sleep(60)
"""


class Signals(Tmp):
    def stop_with(self, signum):
        write(self.path("p.xml"), OLD)
        child = subprocess.Popen([sys.executable, "-c", STOPPED, PLATFORMS, self.path("p.xml")],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            self.assertEqual(child.stdout.readline(), "writing\n")
            self.assertEqual(len([f for f in os.listdir(self.dir) if ".tmp." in f]), 1)  # the write is under way
            child.send_signal(signum)
            self.assertEqual(child.wait(timeout=30), -signum)
        finally:
            child.kill()
            child.wait()
            child.stdout.close()
        self.assertEqual(read(self.path("p.xml")), OLD)
        self.assertNoTemporaryFiles()

    def test_sigterm_removes_the_temporary_file(self):
        self.stop_with(signal.SIGTERM)

    def test_sigint_removes_the_temporary_file(self):
        self.stop_with(signal.SIGINT)


if __name__ == "__main__":
    unittest.main()
