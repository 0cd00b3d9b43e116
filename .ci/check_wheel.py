"""Check a built symbody wheel: it holds what users need and nothing else, and it installs.

    python .ci/check_wheel.py DIST_DIR_OR_WHEEL [--no-install]

Content: every module of ``src/symbody`` (so a new subpackage missing from pyproject's
``packages`` list fails here), ``py.typed``, the C runtime of ``fmu_templates/`` (as
``symbody/fmu/templates``), the vendored FMI headers with their license, the SSP 1.0 schemas
with their license, the animation page and its vendored three.js; nothing else (no tests,
``__pycache__``, caches, build products, files over 1 MB).  Install: a fresh virtual environment
(dependencies from the index) installs the wheel, imports ``symbody`` from it and runs ``symbody --version``.

Exits non-zero naming every problem found.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "symbody"
TEMPLATES = ROOT / "fmu_templates"
MAX_BYTES = 1_000_000  # the largest file shipped, three.core.min.js, is about 0.4 MB
STRAY_PARTS = {"__pycache__", "tests", ".pytest_cache", ".mypy_cache", ".ruff_cache", "_build", ".ipynb_checkpoints"}
STRAY_SUFFIXES = {".pyc", ".pyo", ".o", ".so", ".dll", ".dylib", ".fmu", ".zip", ".log", ".orig", ".rej"}


def expected_files() -> set[str]:
    """Paths inside the wheel that the source tree says it must hold."""
    out = {f"symbody/{p.relative_to(SRC).as_posix()}" for p in SRC.rglob("*.py") if "__pycache__" not in p.parts}
    out.add("symbody/py.typed")
    for pattern in ("*.c", "*.h", "*.md"):
        out |= {f"symbody/fmu/templates/{p.name}" for p in TEMPLATES.glob(pattern)}
    out |= {f"symbody/fmu/fmi_headers/{p.name}" for p in (SRC / "fmu" / "fmi_headers").glob("*.h")}
    out.add("symbody/fmu/fmi_headers/LICENSE.txt")
    out |= {f"symbody/fmu/ssp_schema/{p.name}" for p in (SRC / "fmu" / "ssp_schema").glob("*.xsd")}
    out.add("symbody/fmu/ssp_schema/LICENSE.txt")
    out.add("symbody/viz/page.html")
    vendor = SRC / "viz" / "vendor"
    out |= {f"symbody/viz/vendor/{p.name}" for p in vendor.iterdir() if p.suffix in (".js", ".txt", ".md")}
    return out


def content_problems(wheel: Path) -> list[str]:
    """What is missing from the wheel, and what it holds that it should not."""
    with zipfile.ZipFile(wheel) as zf:
        infos = [i for i in zf.infolist() if not i.is_dir()]
    names = {i.filename for i in infos}
    problems = [f"missing: {name}" for name in sorted(expected_files() - names)]
    # sanity floor: the checks above must have found the shipped data at all
    for required in (
        "symbody/__init__.py",
        "symbody/py.typed",
        "symbody/fmu/templates/fmi2Functions.c",
        "symbody/fmu/fmi_headers/fmi2Functions.h",
        "symbody/fmu/fmi_headers/fmi3Functions.h",
        "symbody/fmu/ssp_schema/SystemStructureDescription.xsd",
        "symbody/viz/page.html",
        "symbody/viz/vendor/three.module.min.js",
    ):
        if required not in names:
            problems.append(f"missing: {required}")
    for info in infos:
        path = Path(info.filename)
        top = path.parts[0]
        if top != "symbody" and not (top.startswith("symbody-") and top.endswith(".dist-info")):
            problems.append(f"outside the package: {info.filename}")
        elif STRAY_PARTS & set(path.parts) or path.suffix in STRAY_SUFFIXES:
            problems.append(f"stray file: {info.filename}")
        elif top == "symbody" and info.filename not in expected_files():
            problems.append(f"unexpected file (not in the source tree's package data): {info.filename}")
        if info.file_size > MAX_BYTES:
            problems.append(f"large file ({info.file_size / 1e6:.1f} MB): {info.filename}")
    return sorted(set(problems))


def install_problems(wheel: Path) -> list[str]:
    """Install the wheel in a fresh virtual environment; import it and run the command line."""
    version = wheel.name.split("-")[1]
    with tempfile.TemporaryDirectory(prefix="symbody-wheel-") as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        python, command = venv / "bin" / "python", venv / "bin" / "symbody"
        clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
        pip = subprocess.run(
            [str(python), "-m", "pip", "install", "-q", str(wheel)], capture_output=True, text=True, env=clean
        )
        if pip.returncode:
            return [f"pip install of {wheel.name} failed:\n{pip.stderr[-4000:]}"]
        # the working directory and PYTHONPATH must not hand over a source checkout of symbody
        env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": tmp}
        where = subprocess.run(
            [str(python), "-c", "import symbody; print(symbody.__file__, symbody.__version__)"],
            capture_output=True,
            text=True,
            cwd=tmp,
            env=env,
        )
        problems = []
        if where.returncode:
            problems.append(f"import symbody failed:\n{where.stderr[-4000:]}")
        elif not where.stdout.startswith(str(venv)) or where.stdout.split()[-1] != version:
            problems.append(f"import symbody found {where.stdout.strip()!r}, not version {version} in {venv}")
        cli = subprocess.run([str(command), "--version"], capture_output=True, text=True, cwd=tmp, env=env)
        if cli.returncode or cli.stdout.strip() != f"symbody {version}":
            problems.append(f"symbody --version: exit {cli.returncode}, {cli.stdout.strip()!r} {cli.stderr[-2000:]}")
        return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dist", type=Path, help="the wheel, or the folder holding exactly one symbody wheel")
    parser.add_argument("--no-install", action="store_true", help="check the content only")
    args = parser.parse_args(argv)
    wheels = [args.dist] if args.dist.is_file() else sorted(args.dist.glob("symbody-*.whl"))
    if len(wheels) != 1:
        print(f"check_wheel: expected one symbody wheel in {args.dist}, found {len(wheels)}", file=sys.stderr)
        return 2
    wheel = wheels[0]
    problems = content_problems(wheel)
    if not problems and not args.no_install:
        problems = install_problems(wheel)
    for p in problems:
        print(f"check_wheel: {wheel.name}: {p}", file=sys.stderr)
    if not problems:
        print(f"check_wheel: {wheel.name}: content{'' if args.no_install else ' and fresh install'} OK")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
