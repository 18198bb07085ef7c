#!/usr/bin/env python3
"""Reads cargo's JSON messages on stdin; copies the executables of one kind into a folder.

usage: cargo ... --message-format=json | collect.py DEST tests|benches|bin
Test and bench binaries are named <package>-<target> (e.g. zkntt-gpu-gpu).
"""
import json
import os
import shutil
import sys

dest, want = sys.argv[1], sys.argv[2]
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") != "compiler-artifact" or not m.get("executable"):
        continue
    kind, test = m["target"]["kind"], m["profile"]["test"]
    keep = {
        "tests": test and kind != ["bench"],
        "benches": kind == ["bench"],
        "bin": kind == ["bin"] and not test,
    }[want]
    if not keep:
        continue
    target = m["target"]["name"]
    # "path+file:///.../zkntt-core#0.1.0" or "path+file:///.../benches#zkntt-benches@0.1.0"
    where, _, frag = m["package_id"].partition("#")
    package = frag.split("@")[0] if "@" in frag else where.rstrip("/").split("/")[-1]
    name = target if want == "bin" else f"{package}-{target}".replace("_", "-")
    shutil.copy(m["executable"], os.path.join(dest, name))
    print(f"  {dest}/{name}")
