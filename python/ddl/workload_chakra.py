"""python3 -m ddl.workload MODEL --layout L --format chakra -o PREFIX: one training step of an LLM
layout as MLCommons Chakra execution traces, PREFIX.RANK.et for every rank of the layout (what is
in them: workloads/llm/chakra.hpp; ASTRA-sim plays such a set).

MODEL is a description of workloads/llm/models (small_gpt, llama2_7b, mixtral_8x7b, ...) or a
.json file of that form. The graphs are ddl's C++ step graphs (ddl._ddl.write_llm_chakra calls
step_graph and write_chakra), not a Python copy of them. The set is written all or nothing: under
hidden temporary names beside PREFIX, renamed once every rank's file is written; a file
PREFIX.N.et past the layout's last rank (left by a larger layout) is refused rather than left to
mix with the new set.
"""
import glob
import os

from ddl.workload_file import output_file
from ddl.workload_layers import fail


def models_dir():
    """workloads/llm/models: from the build (ddl/_config.py) or the source tree beside this file."""
    try:
        from ddl import _config
        folder = getattr(_config, "LLM_MODELS", None)
    except ImportError:  # the package run from the source tree
        folder = None
    return folder or os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir,
                                  "workloads", "llm", "models")


def model_path(spec):
    """The description file MODEL stands for."""
    if spec.endswith(".json"):
        if not os.path.isfile(spec):
            fail(f"model description {spec} does not exist")
        return spec
    path = os.path.join(models_dir(), spec + ".json")
    if not os.path.isfile(path):
        names = sorted(f[:-5] for f in os.listdir(models_dir()) if f.endswith(".json")) \
            if os.path.isdir(models_dir()) else []
        fail(f"unknown LLM '{spec}': neither a description of workloads/llm/models "
             f"({', '.join(names) or 'none found'}) nor a .json file")
    return path


def rank_file(prefix, rank):
    return f"{prefix}.{rank}.et"


def write(model, layout, prefix):
    """Writes PREFIX.RANK.et for every rank; returns the rank count. Exits with a message on error."""
    try:
        from ddl import _ddl
    except ImportError as e:
        fail(f"--format chakra needs ddl's compiled core (ddl._ddl): {e}")
    if prefix in ("", "-") or prefix.endswith("/") or os.path.isdir(prefix):
        fail(f"--format chakra writes files PREFIX.RANK.et: -o must be a PREFIX, not '{prefix}'")
    path = model_path(model)
    try:
        output_file.check_writable(rank_file(prefix, 0))
    except output_file.OutputError as e:
        fail(str(e))
    directory, name = os.path.split(prefix)
    temp = os.path.join(directory, f".{name}.tmp.{os.getpid()}")
    try:
        try:
            ranks = _ddl.write_llm_chakra(path, layout, temp)
        except (ValueError, RuntimeError) as e:
            fail(str(e).removeprefix("ddl.workload: "))
        stale = rank_file(prefix, ranks)
        if os.path.exists(stale):
            fail(f"{stale} is there from another trace: with it, this layout's {ranks} files would "
                 f"read as a set of more ranks; remove {prefix}.N.et for N >= {ranks}, or write "
                 "to another prefix")
        for rank in range(ranks):
            try:
                os.rename(rank_file(temp, rank), rank_file(prefix, rank))
            except OSError as e:
                fail(f"cannot write {rank_file(prefix, rank)}: {e.strerror}")
        return ranks
    finally:
        for left in glob.glob(glob.escape(temp) + ".*.et"):
            os.unlink(left)
