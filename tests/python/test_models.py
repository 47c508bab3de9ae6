"""Models from arrays against models from files, and bad data."""

import numpy as np
import pytest

import locus
from files import cvrplib, qaplib, tsplib_coordinates, write_cvrplib


def random_routes(rng, n, k):
    customers = rng.permutation(np.arange(1, n))
    return [list(map(int, part)) for part in np.array_split(customers, k) if len(part)]


def test_tsp_from_coordinates_equals_file(root):
    path = root / "data/tsplib/berlin52.tsp"
    from_file = locus.read(path)
    from_arrays = locus.TSP(tsplib_coordinates(path), name="berlin52")
    assert isinstance(from_file, locus.TSP) and from_file.name == from_arrays.name == "berlin52"
    assert from_file.size == from_arrays.size == 52
    rng = np.random.default_rng(5)
    values = set()
    for _ in range(20):
        tour = rng.permutation(52)
        assert from_arrays.evaluate(tour) == from_file.evaluate(tour)
        values.add(from_file.evaluate(tour))
    assert len(values) > 1
    # The published optimal tour: 7542.
    optimum = from_file.read_solution(root / "data/tsplib/opt-tours/berlin52.opt.tour")
    assert from_arrays.evaluate(optimum) == from_file.evaluate(optimum) == 7542


def test_tsp_matrix_model_agrees_with_coordinates():
    rng = np.random.default_rng(1)
    xy = rng.integers(0, 1000, size=(30, 2))
    d = np.floor(np.sqrt(((xy[:, None, :] - xy[None, :, :]) ** 2).sum(-1)) + 0.5)
    by_coordinates, by_matrix = locus.TSP(xy), locus.TSP(matrix=d)
    tour = rng.permutation(30)
    assert by_matrix.evaluate(tour) == by_coordinates.evaluate(tour)
    assert by_matrix.evaluate(tour) == sum(d[tour[i], tour[(i + 1) % 30]] for i in range(30))


def test_cvrp_from_arrays_equals_file(root):
    path = root / "data/cvrplib/A-n32-k5.vrp"
    xy, demands, capacity = cvrplib(path)
    from_file = locus.read(path)
    from_arrays = locus.CVRP(xy, demands=demands, capacity=capacity, rounding="nint",
                             name="A-n32-k5")
    assert isinstance(from_file, locus.CVRP) and from_file.size == from_arrays.size == 31
    rng = np.random.default_rng(2)
    for _ in range(10):
        routes = random_routes(rng, 32, 8)
        a, b = from_arrays.verify(routes), from_file.verify(routes)
        assert a == b
    feasible = [r for r in random_routes(rng, 32, 31)]  # every customer alone
    assert from_arrays.evaluate(feasible) == from_file.evaluate(feasible)


def test_cvrp_solution_round_trip(tmp_path):
    rng = np.random.default_rng(3)
    xy = rng.uniform(0, 100, size=(20, 2))
    model = locus.CVRP(xy, demands=[0] + [1] * 19, capacity=5)
    routes = random_routes(rng, 20, 4)
    model.write_solution(tmp_path / "s.sol", routes)
    assert model.read_solution(tmp_path / "s.sol") == routes
    feasible, objective, reason = model.verify([[1, 2, 3, 4, 5, 6]] + random_routes(rng, 20, 4))
    assert not feasible and objective is None and reason


def test_qap_from_arrays_equals_file(root):
    path = root / "data/qaplib/nug12.dat"
    a, b = qaplib(path)
    from_file, from_arrays = locus.read(path), locus.QAP(a, b, name="nug12")
    rng = np.random.default_rng(4)
    for _ in range(10):
        p = rng.permutation(12)
        expected = sum(a[i, j] * b[p[i], p[j]] for i in range(12) for j in range(12))
        assert from_arrays.evaluate(p) == from_file.evaluate(p) == expected


def cli_error(run_cli, *arguments):
    completed = run_cli(*arguments, check=False)
    assert completed.returncode != 0
    return completed.stderr


def test_bad_arrays_raise_the_readers_reasons(run_cli, tmp_path):
    # Each bad model raises ValueError (locus.InstanceError) with the reason the command line
    # gives for the same defect in a file; the CLI names file ids (1-based), models the
    # array index.
    xy = np.array([[0, 0], [1, 1], [2, 2], [3, 3]], dtype=float)
    with pytest.raises(locus.InstanceError) as error:
        locus.CVRP(xy, demands=[0, 3, -2, 1], capacity=5)
    assert isinstance(error.value, ValueError)
    write_cvrplib(tmp_path / "neg.vrp", "neg", xy, [0, 3, -2, 1], 5)
    assert "node 3 has negative demand -2" in cli_error(run_cli, "verify", "--instance",
                                                       tmp_path / "neg.vrp", "--solution", "x")
    assert str(error.value) == "model: node 2 has negative demand -2"

    with pytest.raises(ValueError) as error:
        locus.CVRP(xy, demands=[0, 9, 1, 1], capacity=5)
    assert str(error.value) == "model: customer node 1 has demand 9, more than CAPACITY 5"
    write_cvrplib(tmp_path / "big.vrp", "big", xy, [0, 9, 1, 1], 5)
    assert "node 2 has demand 9, more than CAPACITY 5" in cli_error(
        run_cli, "verify", "--instance", tmp_path / "big.vrp", "--solution", "x")

    def message(error_type, make):
        with pytest.raises(error_type) as raised:
            make()
        return str(raised.value)

    assert message(ValueError, lambda: locus.CVRP(np.zeros((4, 3)), demands=[0, 1, 1, 1],
                                                  capacity=5)) == \
        "model: coordinates must have shape (4, 2), got (4, 3)"
    assert message(ValueError, lambda: locus.TSP(np.zeros((5, 3)))) == \
        "model: coordinates must have shape (n, 2), got (5, 3)"
    assert message(ValueError, lambda: locus.CVRP([[0, 0], [1, 1], [np.nan, 1]],
                                                  demands=[0, 1, 1], capacity=5)) == \
        "model: node 2 has coordinates (nan, 1) (coordinates must be finite)"
    assert message(ValueError, lambda: locus.TSP([[0, 0], [np.nan, 1], [2, 2], [3, 3]])) == \
        "model: node 2: coordinate is not finite"
    assert message(TypeError, lambda: locus.CVRP(xy, demands=["a", "b", "c", "d"],
                                                 capacity=5)) == \
        "demands must be an array of numbers (could not convert string to float: 'a')"
    assert message(TypeError, lambda: locus.CVRP(xy, demands=[0, 1, 1, 1], capacity="5")) == \
        "capacity must be a number, got str"
    assert message(ValueError, lambda: locus.CVRP(xy, demands=[0, 1, 1, 1])) == \
        "model: capacity is missing"


def test_asymmetric_and_negative_matrices(run_cli, tmp_path):
    d = np.array([[0, 3, 4], [5, 0, 6], [4, 6, 0]])
    with pytest.raises(ValueError) as error:
        locus.TSP(matrix=d)
    assert "is not symmetric: weight(0,1) = 3 but weight(1,0) = 5 (TYPE TSP needs symmetric " \
           "distances)" in str(error.value)
    (tmp_path / "asym.tsp").write_text(
        "NAME : asym\nTYPE : TSP\nDIMENSION : 3\nEDGE_WEIGHT_TYPE : EXPLICIT\n"
        "EDGE_WEIGHT_FORMAT : FULL_MATRIX\nEDGE_WEIGHT_SECTION\n0 3 4\n5 0 6\n4 6 0\nEOF\n")
    cli = cli_error(run_cli, "verify", "--instance", tmp_path / "asym.tsp", "--solution", "x")
    assert "is not symmetric: weight(1,2) = 3 but weight(2,1) = 5 (TYPE TSP needs symmetric " \
           "distances)" in cli
    with pytest.raises(ValueError, match="is negative"):
        locus.TSP(matrix=-np.ones((3, 3)))
    with pytest.raises(ValueError, match="the matrix is not symmetric"):
        locus.CVRP(matrix=d, demands=[0, 1, 1], capacity=2)
    with pytest.raises(ValueError, match="negative entry -1 in matrix A"):
        locus.QAP(-np.eye(3), np.ones((3, 3)))
    with pytest.raises(ValueError, match=r"distance must have shape \(3, 3\)"):
        locus.QAP(np.ones((3, 3)), np.ones((4, 4)))
    with pytest.raises(ValueError, match=r"flow\[0, 1\] = 0.5 is not an integer"):
        locus.QAP([[0, 0.5], [1, 0]], np.ones((2, 2)))


def test_read_errors():
    with pytest.raises(locus.InstanceError, match="no-such.tsp"):
        locus.read("no-such.tsp")
    with pytest.raises(locus.ConfigError, match="unknown problem 'nope'"):
        locus.read("random-uniform:n=10", problem="nope")
    generated = locus.read("random-uniform:n=50,seed=3", problem="tsp")
    assert generated.size == 50


def test_read_through_the_data_path_and_time_windows():
    import os
    plain = locus.read("cvrplib/CMT1.vrp")
    assert os.path.isabs(plain.instance) and not plain.has_time_windows
    assert plain.size == 50
    windows = locus.read("vrptw/R1_10_1.vrp")
    assert windows.has_time_windows and windows.size == 1000
    xy = np.array([[0, 0], [3, 4], [6, 8]], dtype=float)
    model = locus.CVRP(xy, demands=[0, 1, 1], capacity=2, time_windows=[[0, 100], [0, 10],
                                                                        [20, 30]])
    assert model.has_time_windows
    assert model.evaluate([[1, 2]]) == 20.0
    feasible, _, reason = model.verify([[2, 1]])
    assert not feasible and reason
    with pytest.raises(ValueError, match="its earliest time is after its latest"):
        locus.CVRP(xy, demands=[0, 1, 1], capacity=2, time_windows=[[0, 100], [5, 1], [0, 50]])


def test_plugins_load_by_the_launchers_rules(run_cli):
    import os
    other = os.environ.get("LOCUS_TEST_OTHER_BUILD_DIR", "")
    if not os.path.isdir(other):
        pytest.skip("no plugin of another build here (a build tree with tests has one)")
    with pytest.raises(locus.ConfigError) as error:
        locus.read("random-uniform:n=10", problem="nope", plugin_path=[other])
    assert "built for another locus" in str(error.value)
    cli = run_cli("verify", "--instance", "random-uniform:n=10", "--problem", "nope",
                  "--solution", "x", "--plugin-path", other, check=False)
    assert str(error.value) in cli.stderr


def test_a_solve_leaves_the_data_path_as_it_was(tmp_path):
    import os
    config = tmp_path / "job.yaml"
    config.write_text(open("configs/tsp/ils.yaml").read())
    (tmp_path / "here.tsp").write_text(open("data/tsplib/burma14.tsp").read())
    assert locus.read(tmp_path / "here.tsp").size == 14
    model = locus.TSP(np.random.default_rng(0).integers(0, 100, size=(10, 2)))
    locus.solve(model, config, backend="cpu", iterations=1, time_limit=0)
    # A relative name is not looked up next to the last job's config once the job has ended.
    with pytest.raises(locus.InstanceError):
        locus.read("here.tsp")
    assert os.path.isfile(tmp_path / "here.tsp")
