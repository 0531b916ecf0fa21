#!/usr/bin/python3
"""Make a late-2017-format RAMSES output (stable_17_09) from a current one.

    make_ramses2017.py SRC_OUTPUT DST_OUTPUT

What RAMSES before late 2017 wrote differently (shared/notes/ramses-format.md,
section 9), applied to a copy:
- hydro_file_descriptor.txt in the key/value form ("nvar = N", "variable # i:
  name"), pressure named thermal_pressure and scalars passive_scalar_N;
- no part_file_descriptor.txt;
- part_ files without the family and tag records;
- header_ in the old form ("Total number of ..." lines, fields without
  family and tag).
The amr_, hydro_ and grav_ files and info_ are copied unchanged.
"""
import os
import shutil
import struct
import sys


def records(data):
    pos = 0
    while pos < len(data):
        (n,) = struct.unpack_from("<i", data, pos)
        yield data[pos + 4:pos + 4 + n]
        pos += 8 + n


def record(payload):
    return struct.pack("<i", len(payload)) + payload + struct.pack("<i", len(payload))


def descriptor_vars(path):
    out = []
    for line in open(path):
        if line.strip() and not line.lstrip().startswith("#"):
            _, name, typ = [x.strip() for x in line.split(",")]
            out.append((name, typ))
    return out


def old_hydro_name(name, scalar_index):
    if name == "pressure":
        return "thermal_pressure"
    if name == "metallicity" or name.startswith("scalar_"):
        return "passive_scalar_%d" % scalar_index
    return name


def main(src, dst):
    os.makedirs(dst, exist_ok=True)
    num = os.path.basename(os.path.normpath(src)).split("_")[-1]
    part_fields = None
    pdesc = os.path.join(src, "part_file_descriptor.txt")
    if os.path.exists(pdesc):
        part_fields = descriptor_vars(pdesc)
    for name in sorted(os.listdir(src)):
        s, d = os.path.join(src, name), os.path.join(dst, name)
        if name == "part_file_descriptor.txt":
            continue
        if name == "hydro_file_descriptor.txt":
            hv = descriptor_vars(s)
            lines = ["nvar        = %10d" % len(hv)]
            k = 0
            for i, (n, _) in enumerate(hv):
                if n == "metallicity" or n.startswith("scalar_"):
                    k += 1
                lines.append("variable #%2d: %s" % (i + 1, old_hydro_name(n, k)))
            open(d, "w").write("\n".join(lines) + "\n")
        elif name.startswith("part_") and part_fields:
            recs = list(records(open(s, "rb").read()))
            drop = {8 + i for i, (n, _) in enumerate(part_fields) if n in ("family", "tag")}
            open(d, "wb").write(b"".join(record(r) for i, r in enumerate(recs) if i not in drop))
        elif name == "header_%s.txt" % num:
            counts = {}
            for line in open(s):
                parts = line.split()
                if len(parts) == 2 and parts[1].isdigit():
                    counts[parts[0]] = counts.get(parts[0], 0) + int(parts[1])
            fields = ["pos", "vel", "mass", "iord", "level"]
            names = [n for n, _ in part_fields or []]
            if "birth_time" in names:
                fields.append("tform")
            if "metallicity" in names:
                fields.append("metal")
            total = sum(counts.values())
            out = ["Total number of particles", "%12d" % total,
                   "Total number of dark matter particles", "%12d" % counts.get("DM", 0),
                   "Total number of star particles", "%12d" % counts.get("star", 0),
                   "Total number of sink particles", "%12d" % counts.get("cloud", 0),
                   "Particle fields", " ".join(fields) + " "]
            open(d, "w").write("\n".join(out) + "\n")
        else:
            shutil.copyfile(s, d)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
