"""scripts/peers/routing-table: the routing-quality protocol's tables from routing.jsonl lines."""

import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "scripts", "peers", "routing-table")


def table(*args):
    run = subprocess.run([sys.executable, TOOL, *map(str, args)], capture_output=True, text=True)
    return run.returncode, run.stdout, run.stderr


def locus(instance, seed, objective, best_known, **extra):
    line = {"instance": instance, "seed": seed, "objective": objective, "best_known": best_known,
            "gap": 100.0 * (objective - best_known) / best_known, "backend": "cuda",
            "feasible": True, "iterations": 1000, "git_revision": "abc123",
            "config_file": "configs/dcvrp/best.yaml", "batch": 64, "device": "test GPU",
            "time_to_1pct_s": 1.0, "time_to_0_1pct_s": None}
    line.update(extra)
    return line


def hgs(instance, seed, objective, best_known):
    return {"solver": "hgs", "instance": instance, "seed": seed, "objective": objective,
            "best_known": best_known, "gap": 100.0 * (objective - best_known) / best_known}


def write(path, lines):
    path.write_text("".join(json.dumps(l) + "\n" for l in lines))
    return path


def row(text, first):
    """The cells of the Markdown row whose first cell is `first`."""
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] == first:
            return cells
    raise AssertionError(f"no row {first!r} in:\n{text}")


class RoutingTable(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp_path = Path(tmp.name)

    def test_the_protocol_instances_are_the_59_files_of_data(self):
        code, out, err = table("--default-instances")
        assert code == 0, err
        names = out.split()
        assert len(names) == 59
        assert names[:14] == [f"CMT{i}" for i in range(1, 15)]
        assert names[14:34] == [f"Golden_{i}" for i in range(1, 21)]
        assert sum(1 for n in names if os.path.basename(n).startswith("X-")) == 25
        for n in names:
            assert os.path.isfile(os.path.join(ROOT, "data", "cvrplib", n + ".vrp")), n


    def test_rows_classes_comparisons_and_missing_runs(self):
        tmp_path = self.tmp_path
        lines = [
            # CMT1: locus at the best-known value in both seeds, HGS 0.2 % above in seed 2: ahead.
            locus("CMT1", 1, 100.0, 100.0), hgs("CMT1", 1, 100.0, 100.0),
            locus("CMT1", 2, 100.0, 100.0), hgs("CMT1", 2, 100.2, 100.0),
            # CMT2: the same values to six significant digits (HGS prints 1234.57): equal.
            locus("CMT2", 1, 1234.5678, 1200.0), hgs("CMT2", 1, 1234.57, 1200.0),
            # Golden_1: behind, one locus run infeasible, the 1 % point reached once of two.
            locus("Golden_1", 1, 1010.0, 1000.0, feasible=False, time_to_1pct_s=None),
            hgs("Golden_1", 1, 1002.0, 1000.0),
            locus("Golden_1", 2, 1006.0, 1000.0, time_to_1pct_s=3.0),
            hgs("Golden_1", 2, 1004.0, 1000.0),
            # X: locus ran, HGS did not: not compared.
            locus("X-n101-k25", 1, 27591, 27591),
            # CPU-twin lines and another seed are kept out of the tables, and said so.
            locus("CMT1", 1, 101.0, 100.0, backend="cpu"),
            locus("CMT1", 7, 101.0, 100.0),
        ]
        data = write(tmp_path / "routing.jsonl", lines)
        code, out, err = table("--seeds", "1 2", "--instances",
                               "CMT1 CMT2 Golden_1 X-n101-k25", data)
        assert code == 0, err

        cmt1 = row(out, "CMT1")
        assert cmt1[1] == "1,2"
        assert cmt1[2:6] == ["0.000", "0.000", "0.100", "0.000"]
        assert cmt1[6] == "ahead"
        cmt2 = row(out, "CMT2")
        assert cmt2[1] == "1"
        assert cmt2[6] == "equal"
        golden = row(out, "Golden_1")
        assert golden[2:4] == ["0.800", "0.600"]
        assert golden[4:6] == ["0.300", "0.200"]
        assert golden[6] == "behind"
        assert golden[7] == "3.00 (1 of 2)"
        assert golden[8] == "—"
        assert golden[10] == "1 of 2"
        x = row(out, "X-n101-k25")
        assert x[1] == "1 (HGS —)"
        assert x[6] == "—"

        # Class rows: each solver's mean over the instances it ran, of the instances' mean gaps.
        cmt2_gap = 100.0 * (1234.5678 - 1200.0) / 1200.0
        cmt2_hgs = 100.0 * (1234.57 - 1200.0) / 1200.0
        cmt = row(out, "CMT")
        assert cmt[1] == "2, 2 (2)"
        assert cmt[3] == f"{cmt2_gap / 2:.3f} ({cmt2_gap / 2 - 0.05:.3f} over)"
        assert cmt[4] == f"{(0.1 + cmt2_hgs) / 2:.3f}"
        assert cmt[5] == "1 / 1 / 0"
        assert cmt[6] == "100%"
        assert row(out, "Golden")[3] == "0.800 (0.500 over)"
        assert row(out, "Golden")[7] == "1 of 2"
        xs = row(out, "X")
        assert xs[1] == "1, 0 (1)"
        assert xs[3] == "0.000 (met)"
        assert xs[4] == "—"
        assert xs[5] == "0 / 0 / 0" and xs[6] == "—"
        assert xs[7] == "1 of 1"
        assert row(out, "all")[5] == "1 / 1 / 1"
        assert row(out, "all")[6] == "67% (not met)"

        # Missing runs, per solver and seed; the provenance of the locus lines.
        assert "- locus, seed 2: 2 of 4 (CMT2 X-n101-k25)" in out
        assert "- HGS-CVRP, seed 1: 1 of 4 (X-n101-k25)" in out
        assert "- HGS-CVRP, seed 2: 2 of 4 (CMT2 X-n101-k25)" in out
        assert "locus commits: abc123" in out
        assert "locus chains: 64" in out
        assert "locus-cpu CMT1 seed 1" in out and "locus CMT1 seed 7" in out


    def test_several_files_add_up_and_nothing_missing_is_said(self):
        tmp_path = self.tmp_path
        a = write(tmp_path / "a.jsonl",
                  [locus("CMT3", 1, 826.14, 826.14), hgs("CMT3", 1, 826.14, 826.14)])
        b = write(tmp_path / "b.jsonl",
                  [locus("CMT4", 1, 1030.0, 1028.42), hgs("CMT4", 1, 1028.42, 1028.42)])
        code, out, err = table("--seeds", "1", "--instances", "CMT3 CMT4", a, b)
        assert code == 0, err
        assert row(out, "CMT3")[6] == "equal"
        assert row(out, "CMT4")[6] == "behind"
        assert row(out, "CMT")[5] == "0 / 1 / 1"
        assert row(out, "all")[6] == "50% (not met)"
        assert "Missing runs of the protocol: none." in out


    def test_a_class_not_run_whole_is_judged_as_a_subset(self):
        tmp_path = self.tmp_path
        data = write(tmp_path / "a.jsonl",
                     [locus("CMT3", 1, 826.14, 826.14), hgs("CMT3", 1, 827.0, 826.14),
                      locus("Golden_1", 1, 1010.0, 1000.0)])
        code, out, err = table("--seeds", "1", "--instances", "CMT3 CMT4 Golden_1", data)
        assert code == 0, err
        assert row(out, "CMT")[1] == "1, 1 (2)"
        assert row(out, "CMT")[3] == "0.000 (met on 1 of 2)"
        assert row(out, "Golden")[3] == "1.000 (0.700 over)"
        assert row(out, "all")[6] == "100% (met on 2 of 3)"


    def test_bad_input_one_line_and_status_2(self):
        tmp_path = self.tmp_path
        broken = tmp_path / "broken.jsonl"
        broken.write_text(json.dumps(locus("CMT1", 1, 525.0, 524.61)) + "\n{not json\n")
        code, out, err = table(broken)
        assert code == 2 and out == ""
        assert err.startswith(f"routing-table: {broken}:2: not a JSON line (")

        partial = write(tmp_path / "partial.jsonl", [{"instance": "CMT1", "seed": 1}])
        code, _, err = table(partial)
        assert code == 2
        assert err == (f"routing-table: {partial}:1: not a routing results line (instance, "
                       "seed and objective are required)\n")

        first = write(tmp_path / "first.jsonl", [locus("CMT1", 1, 525.0, 524.61)])
        second = write(tmp_path / "second.jsonl", [locus("CMT1", 1, 526.0, 524.61)])
        code, _, err = table(first, second)
        assert code == 2
        assert err == (f"routing-table: {second}:1: a second locus line for CMT1 seed 1 (the first "
                       f"in {first}:1); give each run once\n")
        # The same line twice (a file given twice) is one run.
        code, _, err = table(first, first)
        assert code == 0, err

        code, _, err = table(tmp_path / "absent.jsonl")
        assert code == 2
        assert err.startswith(f"routing-table: {tmp_path / 'absent.jsonl'}: cannot be read (")

        code, _, err = table("--seeds", "one", first)
        assert code == 2 and err == "routing-table: --seeds: expected integers, got 'one'\n"


    def test_lines_of_different_configurations_are_named(self):
        tmp_path = self.tmp_path
        def config(population, instance, seed, threads=0):
            return {"seed": seed, "output": f"out-{seed}", "device": seed % 2, "threads": threads,
                    "problem": {"name": "dcvrp", "instance": instance},
                    "algorithm": {"name": "chains", "population": population, "epoch": 5}}
        same = [locus("CMT1", 1, 524.61, 524.61, config=config("auto", "CMT1.vrp", 1)),
                locus("CMT2", 2, 835.26, 835.26, config=config("auto", "CMT2.vrp", 2))]
        # Only the seed, output, device and instance differ: one configuration, no warning.
        code, out, err = table("--seeds", "1 2", write(tmp_path / "same.jsonl", same))
        assert code == 0, err
        assert "different configurations" not in out
        # A line with another population (and the threads) is named, with both values of each key.
        mixed = same + [locus("CMT3", 1, 826.14, 826.14,
                              config=config(25, "CMT3.vrp", 1, threads=2))]
        code, out, err = table("--seeds", "1 2", write(tmp_path / "mixed.jsonl", mixed))
        assert code == 0, err
        warning = [l for l in out.splitlines() if "different configurations" in l]
        assert len(warning) == 1
        assert 'algorithm.population: "auto", 25' in warning[0]
        assert "threads: 0, 2" in warning[0]
        assert "seed" not in warning[0] and "instance" not in warning[0]
        # HGS-CVRP's lines carry no configuration and do not count.
        code, out, err = table("--seeds", "1 2", write(tmp_path / "hgs.jsonl",
                                                        same + [hgs("CMT1", 1, 524.61, 524.61)]))
        assert code == 0, err
        assert "different configurations" not in out


if __name__ == "__main__":
    unittest.main()
