"""Small readers of the benchmark files, independent of locus, to build the same models from
arrays."""

import numpy as np


def tsplib_coordinates(path):
    """The NODE_COORD_SECTION of a TSPLIB file."""
    rows, inside = [], False
    for line in open(path):
        words = line.split()
        if not words:
            continue
        if words[0] == "NODE_COORD_SECTION":
            inside = True
            continue
        if words[0] == "EOF":
            break
        if inside:
            rows.append((float(words[1]), float(words[2])))
    return np.array(rows)


def cvrplib(path):
    """(coordinates, demands, capacity) of a CVRPLIB EUC_2D file with its depot as node 1."""
    sections, capacity, current = {"NODE_COORD_SECTION": [], "DEMAND_SECTION": []}, None, None
    for line in open(path):
        words = line.replace(":", " : ").split()
        if not words:
            continue
        if words[0] == "CAPACITY":
            capacity = int(words[-1])
        elif words[0] in sections:
            current = words[0]
        elif words[0] in ("DEPOT_SECTION", "EOF"):
            current = None
        elif current and words[0].lstrip("-").isdigit():
            sections[current].append([float(w) for w in words[1:]])
    return (np.array(sections["NODE_COORD_SECTION"]),
            np.array(sections["DEMAND_SECTION"])[:, 0], capacity)


def qaplib(path):
    """(flow, distance) of a QAPLIB .dat file: n, then A and B."""
    numbers = [int(w) for w in open(path).read().split()]
    n = numbers[0]
    a = np.array(numbers[1:1 + n * n]).reshape(n, n)
    b = np.array(numbers[1 + n * n:1 + 2 * n * n]).reshape(n, n)
    return a, b


def write_tsplib(path, name, xy):
    with open(path, "w") as out:
        out.write(f"NAME : {name}\nTYPE : TSP\nDIMENSION : {len(xy)}\nEDGE_WEIGHT_TYPE : EUC_2D\n"
                  "NODE_COORD_SECTION\n")
        for i, (x, y) in enumerate(xy, 1):
            out.write(f"{i} {x:g} {y:g}\n")
        out.write("EOF\n")


def write_cvrplib(path, name, xy, demands, capacity):
    with open(path, "w") as out:
        out.write(f"NAME : {name}\nTYPE : CVRP\nDIMENSION : {len(xy)}\nEDGE_WEIGHT_TYPE : EUC_2D\n"
                  f"CAPACITY : {capacity}\nNODE_COORD_SECTION\n")
        for i, (x, y) in enumerate(xy, 1):
            out.write(f"{i} {x:g} {y:g}\n")
        out.write("DEMAND_SECTION\n")
        for i, q in enumerate(demands, 1):
            out.write(f"{i} {int(q)}\n")
        out.write("DEPOT_SECTION\n1\n-1\nEOF\n")


def write_qaplib(path, a, b):
    n = len(a)
    with open(path, "w") as out:
        out.write(f"{n}\n\n")
        for m in (a, b):
            for row in m:
                out.write(" ".join(str(int(v)) for v in row) + "\n")
            out.write("\n")
