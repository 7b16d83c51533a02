# SPDX-License-Identifier: Apache-2.0
"""python -m wnn: runs the wnn command-line program with the same arguments.

The program is native (wnn devices, wnn run, wnn conformance, ...), built and
installed with the library, not with this module. This finds it on PATH, or
as WNN_PROGRAM names it, and replaces this process with it; without it, it
says where the program comes from and exits with 2 (wnn's usage status).
"""
import os
import shutil
import sys


def find_program():
    """The path of the native wnn program, or None. Only an ELF executable
    counts, so that a Python entry point named wnn never runs itself."""
    candidates = [os.environ.get("WNN_PROGRAM"), shutil.which("wnn")]
    for path in candidates:
        if not path or not os.access(path, os.X_OK):
            continue
        try:
            with open(path, "rb") as f:
                if f.read(4) == b"\x7fELF":
                    return path
        except OSError:
            continue
    return None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    program = find_program()
    if program is None:
        sys.stderr.write(
            "python -m wnn: the wnn program is not installed: it comes with the C library "
            "(cmake --build build && cmake --install build puts it in PREFIX/bin), not with the "
            "Python module. Put it on PATH, or name it with WNN_PROGRAM=/path/to/wnn.\n")
        return 2
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(program, [program, *argv])
    return 0  # not reached: execv replaces the process


if __name__ == "__main__":
    sys.exit(main())
