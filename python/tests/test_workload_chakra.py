#!/usr/bin/python3
"""python3 -m ddl.workload MODEL --layout L --format chakra -o PREFIX: every rank's file read back
with python3-protobuf (ddl/et_def_pb2.py, compiled from the same et_def.proto as the C++ side)
holds the C++ step graph of its rank (ddl._ddl._llm_step_graph) node for node: ids, names,
types, dependencies, the metadata's rank and layout; across ranks every send has its receive.
Bad arguments are refused with their message and leave no file; a set is written all or nothing.
"""
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stderr
from io import StringIO

try:
    from ddl import workload
except ImportError as e:  # ddl.workload walks torch models: it imports torch
    print(f"SKIPPED: ddl.workload is not importable ({e})")
    sys.exit(77)
from ddl import _ddl, workload_chakra
from ddl import et_def_pb2 as et

LAYOUT = "tp=2,pp=2,dp=1,mb=3"
KIND = {"compute": et.COMP_NODE, "collective": et.COMM_COLL_NODE, "send": et.COMM_SEND_NODE,
        "recv": et.COMM_RECV_NODE}


def read_trace(path):
    """(GlobalMetadata, [Node]): each message preceded by its length as a varint32, as Chakra
    writes them (its protolib.py's encodeMessage)."""
    with open(path, "rb") as f:
        data = f.read()
    messages, pos = [], 0
    while pos < len(data):
        size, shift = 0, 0
        while True:
            byte = data[pos]
            pos += 1
            size |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        messages.append(data[pos:pos + size])
        pos += size
    return et.GlobalMetadata.FromString(messages[0]), [et.Node.FromString(m) for m in messages[1:]]


def attrs(message):
    return {a.name: getattr(a, a.WhichOneof("value")) for a in message.attr}


def refused(argv):
    """ddl.workload's exit message for argv (it exits with one on every error)."""
    with redirect_stderr(StringIO()), unittest.TestCase().assertRaises(SystemExit) as exited:
        workload.main(argv)
    return str(exited.exception.code)


class Chakra(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.prefix = os.path.join(self.dir.name, "step")

    def tearDown(self):
        self.dir.cleanup()

    def test_every_rank_is_the_cpp_graph(self):
        subprocess.run([sys.executable, "-m", "ddl.workload", "small_gpt", "--layout", LAYOUT,
                        "--format", "chakra", "-o", self.prefix], check=True, timeout=120)
        self.assertEqual(sorted(os.listdir(self.dir.name)), [f"step.{r}.et" for r in range(4)])
        model = os.path.join(workload_chakra.models_dir(), "small_gpt.json")
        messages = {}  # (src, dst) -> [sends, receives]
        for rank in range(4):
            meta, nodes = read_trace(f"{self.prefix}.{rank}.et")
            self.assertEqual(meta.version, "0.0.4")
            self.assertEqual(attrs(meta)["ddl_rank"], rank)
            self.assertEqual(attrs(meta)["ddl_layout"].split(",")[:3], ["tp=2", "pp=2", "dp=1"])
            ops = _ddl._llm_step_graph(model, LAYOUT, rank)
            self.assertEqual(len(nodes), len(ops))
            for i, (node, (kind, label, after)) in enumerate(zip(nodes, ops)):
                self.assertEqual((node.id, node.name, node.type, list(node.data_deps)),
                                 (i, label, KIND[kind], list(after)))
                a = attrs(node)
                self.assertIs(a["is_cpu_op"], False)
                if kind == "collective":
                    self.assertIn(a["pg_name"], ("tp", "dp"))
                if kind in ("send", "recv"):
                    pair = messages.setdefault((a["comm_src"], a["comm_dst"]), [0, 0])
                    pair[kind == "recv"] += 1
            counts = {t: sum(n.type == t for n in nodes) for t in KIND.values()}
            self.assertEqual(counts, {t: sum(KIND[k] == t for k, _, _ in ops) for t in KIND.values()})
            self.assertGreater(counts[et.COMM_COLL_NODE], 0)
        self.assertTrue(messages)
        for pair, (sends, receives) in messages.items():
            self.assertEqual(sends, receives, f"messages {pair[0]} -> {pair[1]}")

    def test_bad_arguments_named_and_nothing_written(self):
        cases = [
            (["small_gpt", "--format", "chakra", "-o", self.prefix], "--format chakra needs --layout"),
            (["small_gpt", "--layout", LAYOUT, "-o", self.prefix], "--layout is for --format chakra"),
            (["small_gpt", "--layout", LAYOUT, "--format", "chakra"], "give -o PREFIX"),
            (["small_gpt", "--layout", LAYOUT, "--format", "chakra", "--measure", "-o", self.prefix],
             "takes MODEL, --layout and -o only, not --measure"),
            (["no_such_llm", "--layout", LAYOUT, "--format", "chakra", "-o", self.prefix],
             "unknown LLM 'no_such_llm'"),
            (["small_gpt", "--layout", "tp=3", "--format", "chakra", "-o", self.prefix],
             "tp 3 does not divide"),
            (["small_gpt", "--layout", LAYOUT, "--format", "chakra", "-o", self.dir.name],
             "-o must be a PREFIX"),
        ]
        for argv, message in cases:
            with self.subTest(argv=argv):
                self.assertIn(message, refused(argv))
                self.assertEqual(os.listdir(self.dir.name), [])

    def test_all_or_nothing(self):
        with open(f"{self.prefix}.0.et", "w") as f:
            f.write("old")
        with open(f"{self.prefix}.4.et", "w") as f:  # a larger layout's rank
            f.write("old")
        self.assertIn("step.4.et is there from another trace",
                      refused(["small_gpt", "--layout", LAYOUT, "--format", "chakra", "-o", self.prefix]))
        self.assertEqual(sorted(os.listdir(self.dir.name)), ["step.0.et", "step.4.et"])
        with open(f"{self.prefix}.0.et") as f:
            self.assertEqual(f.read(), "old")
        os.unlink(f"{self.prefix}.4.et")
        self.assertEqual(workload.main(["small_gpt", "--layout", LAYOUT, "--format", "chakra",
                                        "-o", self.prefix]), 0)
        self.assertEqual(sorted(os.listdir(self.dir.name)), [f"step.{r}.et" for r in range(4)])
        self.assertEqual(len(read_trace(f"{self.prefix}.0.et")[1]),
                         len(_ddl._llm_step_graph(workload_chakra.model_path("small_gpt"), LAYOUT, 0)))


if __name__ == "__main__":
    unittest.main()
