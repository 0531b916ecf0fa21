#!/usr/bin/python3
"""Write the small seed inputs of the RAMSES fuzz targets (fuzz/corpus/):
a one-CPU, one-level amr + hydro pair for fuzz_ramses_records, and each
text file of tests/data's gravpart output behind its parser byte for
fuzz_ramses_text, and every file of a small make-ramses output behind its
index (in name order) for fuzz_ramses_output (needs build/snapkit, or the
command named by SNAPKIT_CLI); the info, info_rt and header texts again with
numeric edge values (NaN, infinities, overflow, subnormals, zero, negative,
Fortran D exponents) for both; and options for fuzz_synth_plan. Run from
the repository root."""
import os
import shutil
import struct
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "data", "ramses", "gravpart", "output_00002")


def rec(payload):
    return struct.pack("<i", len(payload)) + payload + struct.pack("<i", len(payload))


def i4(*v):
    return struct.pack("<%di" % len(v), *v)


def f8(*v):
    return struct.pack("<%dd" % len(v), *v)


def amr_file(padded=False):
    """One CPU, one oct on level 1; padded: the 3x3x3 coarse grid and six
    boundary lists of a run with physical boundaries (the box is the
    central coarse cell, the only one with a cpu_map)."""
    nx, nb = (3, 6) if padded else (1, 0)
    ncoarse = nx ** 3
    h = [i4(1), i4(3), i4(nx, nx, nx), i4(1), i4(10), i4(nb), i4(1), f8(1.0), i4(1, 1, 1),
         f8(0.0), f8(0.0), f8(0.0), f8(0.0), f8(0.0), i4(0, 0), f8(0, 0, 0), f8(*[0] * 7),
         f8(*[0] * 5), f8(0.0), i4(1), i4(1), i4(1), i4(*[0] * 10)]
    if padded:
        h += [i4(*[0] * nb), i4(*[0] * nb), i4(*[0] * nb)]  # headb, tailb, numbb
    cpu_map = [0] * ncoarse
    cpu_map[ncoarse // 2] = 1
    h += [i4(*[0] * 5), b"hilbert".ljust(128), f8(0.0, 8.0), i4(*[1] * ncoarse),
          i4(*[0] * ncoarse), i4(*cpu_map)]
    c = 1.5 if padded else 0.5
    octs = [i4(1), i4(0), i4(0), f8(c), f8(c), f8(c), i4(1)] + [i4(0)] * 6
    octs += [i4(0)] * 8 + [i4(1)] * 8 + [i4(0)] * 8
    return b"".join(rec(r) for r in h + octs)


def hydro_file(padded=False):
    nb = 6 if padded else 0
    h = [i4(1), i4(5), i4(3), i4(1), i4(nb), f8(1.4), i4(1), i4(1)]
    h += [f8(1.0 + k) for k in range(40)]
    h += [i4(1), i4(0)] * nb  # empty boundary lists
    return b"".join(rec(r) for r in h)


def main():
    rdir = os.path.join(ROOT, "fuzz", "corpus", "fuzz_ramses_records")
    tdir = os.path.join(ROOT, "fuzz", "corpus", "fuzz_ramses_text")
    os.makedirs(rdir, exist_ok=True)
    os.makedirs(tdir, exist_ok=True)
    amr = amr_file()
    with open(os.path.join(rdir, "one_oct"), "wb") as f:
        f.write(bytes([0, 0]) + struct.pack("<H", len(amr)) + amr + hydro_file())
    amr = amr_file(padded=True)
    with open(os.path.join(rdir, "one_oct_boundaries"), "wb") as f:
        f.write(bytes([0, 0]) + struct.pack("<H", len(amr)) + amr + hydro_file(padded=True))
    texts = [(0, "info_00002.txt"), (1, "hydro_file_descriptor.txt"),
             (1, "part_file_descriptor.txt"), (2, "header_00002.txt"), (3, "namelist.txt")]
    for sel, name in texts:
        with open(os.path.join(tdir, name), "wb") as f:
            f.write(bytes([sel]) + open(os.path.join(OUT, name), "rb").read())
    old = [(1, "kv_descriptor", b"nvar        =          6\nvariable # 1: density\n"
            b"variable # 2: velocity_x\nvariable # 3: velocity_y\nvariable # 4: velocity_z\n"
            b"variable # 5: thermal_pressure\nvariable # 6: passive_scalar_1\n"),
           (2, "old_header", b"Total number of particles\n        3335\n"
            b"Total number of dark matter particles\n        2000\nParticle fields\n"
            b"pos vel mass iord level tform metal \n")]
    for sel, name, text in old:
        with open(os.path.join(tdir, name), "wb") as f:
            f.write(bytes([sel]) + text)


def sink_binary(ndim, nsink, with_acc):
    """A sink_NNNNN.outCCCCC of RAMSES 2014-2018 (pm/output_sink.f90,
    backup_sink), as fuzz_ramses_catalogue reads it behind byte 0xF0 + ndim - 1."""
    out = rec(i4(nsink)) + rec(i4(nsink + 1))
    if nsink:
        nf = 3 + 3 * ndim + (1 if with_acc else 0)
        for k in range(nf):
            out += rec(f8(*[0.1 * (k + 1) + i for i in range(nsink)]))
        out += rec(i4(*range(1, nsink + 1))) + rec(i4(*[1] * nsink)) + rec(i4(7))
    return bytes([0xF0 + ndim - 1]) + out


def catalogue_seeds():
    cdir = os.path.join(ROOT, "fuzz", "corpus", "fuzz_ramses_catalogue")
    os.makedirs(cdir, exist_ok=True)
    for name, args in (("sink_binary_2015", (3, 2, True)), ("sink_binary_2017", (3, 3, False)),
                       ("sink_binary_2d", (2, 1, False)), ("sink_binary_empty", (3, 0, False))):
        with open(os.path.join(cdir, name), "wb") as f:
            f.write(sink_binary(*args))


EDGES = ["NaN", "-Infinity", "Infinity", "1.0E+309", "-0.0", "4.9E-324", "0.0",
         "-0.100000000000000E+01", "0.100000000000000D+01", "1.0E-400", "1e", "+"]


def edge_infos(info):
    """(seed name, text): info with each edge value in a float key."""
    out = []
    for key in ("boxlen", "aexp", "unit_l", "time"):
        for k, v in enumerate(EDGES):
            lines = [("%-12s=  %s" % (key, v)) if l.split("=")[0].strip() == key else l
                     for l in info.split("\n")]
            out.append(("info_%s_%d" % (key, k), "\n".join(lines)))
    return out


def edge_seeds():
    """Edge values in gravpart's info, info_rt and header texts for
    fuzz_ramses_text, and in the make-ramses output's info for
    fuzz_ramses_output (behind that file's byte)."""
    tdir = os.path.join(ROOT, "fuzz", "corpus", "fuzz_ramses_text")
    odir = os.path.join(ROOT, "fuzz", "corpus", "fuzz_ramses_output")
    header = open(os.path.join(OUT, "header_00002.txt")).read()
    rt = ("nRTvar      =          3\nnIons       =          3\nnGroups     =          1\n"
          "iIons       =          6\n\nX_fraction  =  0.760000000000000E+00\n"
          "Y_fraction  =  0.240000000000000E+00\n\nunit_np     =  0.100000000000000E+01\n"
          "unit_pf     =  0.100000000000000E+01\nrt_c_frac   =  0.100000000000000E-01\n\n")
    texts = [(0, name, text)
             for name, text in edge_infos(open(os.path.join(OUT, "info_00002.txt")).read())]
    for k, v in enumerate(EDGES[:6]):
        texts.append((4, "info_rt_%d" % k, rt.replace("0.100000000000000E-01", v)))
        texts.append((2, "header_%d" % k, header.replace("2000", v, 1)))
    for sel, name, text in texts:
        with open(os.path.join(tdir, "edge_" + name), "wb") as f:
            f.write(bytes([sel]) + text.encode())
    seed = open(os.path.join(odir, "info_00001.txt"), "rb").read()
    for name, text in edge_infos(seed[1:].decode()):
        with open(os.path.join(odir, "edge_" + name), "wb") as f:
            f.write(seed[:1] + text.encode())


def synth_plan_seeds():
    """ncpu (2 bytes), levelmin, levelmax span, refinement, cell target (2
    bytes), seed: the corners of each range."""
    sdir = os.path.join(ROOT, "fuzz", "corpus", "fuzz_synth_plan")
    os.makedirs(sdir, exist_ok=True)
    cases = [(1, 0, 0, 0, 0, 1), (2, 1, 1, 1, 512, 7), (7, 3, 2, 2, 19999, 99),
             (2999, 3, 2, 0, 4096, 2**40), (4096, 2, 1, 1, 1, 5), (64, 0, 2, 2, 0, 0)]
    for k, (ncpu, lmin, span, refine, cells, seed) in enumerate(cases):
        with open(os.path.join(sdir, "plan_%d" % k), "wb") as f:
            f.write(struct.pack("<HBBBH", ncpu, lmin, span, refine, cells) +
                    struct.pack(">Q", seed))


def output_seeds():
    """The output fuzz_ramses_output writes at start (same options), each
    file behind the byte that selects it."""
    cli = os.environ.get("SNAPKIT_CLI", os.path.join(ROOT, "build", "snapkit"))
    odir = os.path.join(ROOT, "fuzz", "corpus", "fuzz_ramses_output")
    os.makedirs(odir, exist_ok=True)
    tmp = tempfile.mkdtemp()
    try:
        out = os.path.join(tmp, "output_00001")
        subprocess.run([cli, "make-ramses", out, "--ncpu", "2", "--levelmin", "2",
                        "--levelmax", "3", "--components", "hydro,gravity,particles",
                        "--npart", "64", "--output", "1", "--threads", "1"],
                       check=True, capture_output=True)
        for i, name in enumerate(sorted(os.listdir(out))):
            with open(os.path.join(odir, name), "wb") as f:
                f.write(bytes([i]) + open(os.path.join(out, name), "rb").read())
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
    catalogue_seeds()
    output_seeds()
    edge_seeds()
    synth_plan_seeds()
