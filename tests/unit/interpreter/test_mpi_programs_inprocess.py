"""Issue 29's sharded JAX programs (``tests/data/mpi/``, written by ``tools/make_mpi_programs.py``
with jax over 8 CPU devices) run in-process today: ``interpreter.run`` on the committed text and
arguments gives what XLA computed, within the dtype's tolerance
(``stablehlo_py.backends.tolerance``; integers exactly).  Needs neither jax nor MPI: the data is
committed, so CI without jax runs it.  The same files are the inputs of the MPI engine's done-when
tests (plan §5.1)."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import numpy as np
import pytest
from stablehlo_py.interpreter import run

from stablehlo_py.ir import parse
from tests.oracle.consumers import assert_close

DATA = Path(__file__).resolve().parents[2] / "data" / "mpi"
MANIFEST = json.loads((DATA / "manifest.json").read_text())
PROGRAMS = {row["name"]: row for row in MANIFEST["programs"]}
FORMS = {  # what each form's text must hold (True) or not (False)
    "global": {"sdy.manual_computation": False, "@SPMDFullToShardShape": False},
    "shardy": {"sdy.manual_computation": True, "@SPMDFullToShardShape": False},
    "pmap": {"sdy.manual_computation": True, "@SPMDFullToShardShape": False},
    "gspmd": {"sdy.manual_computation": False, "@SPMDFullToShardShape": True},
}


def _text(file: str) -> str:
    with gzip.open(DATA / file, "rt") as fh:
        return fh.read()


def _grid_attribute(module, name: str) -> int:
    attr = module.attributes.get(f"mhlo.{name}")
    return 1 if attr is None else attr.value.data


def test_manifest_names_every_committed_file() -> None:
    listed = {"manifest.json", MANIFEST["big"]["file"]}
    for row in MANIFEST["programs"]:
        listed |= {row["file"], row["data"]}
    assert listed == {p.name for p in DATA.iterdir()}
    assert len(PROGRAMS) == len(MANIFEST["programs"]) >= 10
    assert {r["form"] for r in PROGRAMS.values()} == set(FORMS)
    assert len([r for r in PROGRAMS.values() if r["same_args_as"]]) == 3


def test_the_data_stays_small() -> None:
    assert sum(p.stat().st_size for p in DATA.iterdir()) < 200_000


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_runs_in_process_as_xla_computed(name: str) -> None:
    row = PROGRAMS[name]
    text = _text(row["file"])
    for needle, present in FORMS[row["form"]].items():
        assert (needle in text) == present, f"{name} ({row['form']}): {needle}"
    module = parse(text)
    assert (_grid_attribute(module, "num_replicas"), _grid_attribute(module, "num_partitions")) == (
        row["num_replicas"], row["num_partitions"]) == (1, 8)
    with np.load(DATA / row["data"]) as data:
        names = [f"arg{k}" for k in range(len(row["args"]))]
        names += [f"out{k}" for k in range(len(row["outs"]))]
        assert sorted(data.files) == sorted(names)
        args = [data[f"arg{k}"] for k in range(len(row["args"]))]
        want = [data[f"out{k}"] for k in range(len(row["outs"]))]
    got = run(module, *args)
    assert_close(got, want, name)


def test_big_program_is_the_2_gib_one() -> None:
    """The done-when program of plan §3.4 (data made at test time): 8 partitions, one
    f32[128, 2^22] argument tiled over the 8-device axis, three results; it parses (not run
    here: 2 GiB)."""
    row = MANIFEST["big"]
    text = _text(row["file"])
    module = parse(text)
    assert (_grid_attribute(module, "num_partitions"), row["num_partitions"]) == (8, 8)
    assert re.search(r"@main\(%arg0: tensor<128x4194304xf32> \{sdy.sharding = "
                     r"#sdy.sharding<@mesh, \[\{\"i\"\}, \{\}\]>\}\)", text)
    assert "(%arg1: tensor<16x4194304xf32>)" in text
    assert text.count('"stablehlo.all_reduce"') == 2


def _run_committed(name: str) -> list[np.ndarray]:
    row = PROGRAMS[name]
    with np.load(DATA / row["data"]) as data:
        args = [data[f"arg{k}"] for k in range(len(row["args"]))]
    return [np.asarray(r) for r in run(parse(_text(row["file"])), *args)]


TWINS = sorted((n, r["same_args_as"]) for n, r in PROGRAMS.items() if r["same_args_as"])


@pytest.mark.parametrize(("gspmd", "shardy"), TWINS)
def test_gspmd_and_shardy_forms_give_the_same_bits(gspmd: str, shardy: str) -> None:
    """A program's GSPMD form (custom calls) and Shardy form (sdy.manual_computation), on the same
    arguments, give the same bits in-process (same local code, same reduction order)."""
    assert PROGRAMS[gspmd]["form"] == "gspmd" and PROGRAMS[shardy]["form"] == "shardy"
    ours, theirs = _run_committed(gspmd), _run_committed(shardy)
    assert [r.dtype for r in ours] == [r.dtype for r in theirs]
    assert [r.tobytes() for r in ours] == [r.tobytes() for r in theirs]
