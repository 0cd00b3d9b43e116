"""The documentation does not rot: its Python blocks run and its API reference covers the package.

* Every ```` ```python ```` block of ``README.md`` and of every page of ``docs/`` runs, the
  blocks of one page in order in one namespace (a page's later blocks use what its earlier ones
  define), in a temporary folder so that files they write land there.  A block that only shows a
  fragment is marked by a comment line right above it: ``% not run`` (MyST) or ``<!-- not run ... -->``
  (the README).
* Every public module of ``symbody`` is documented by exactly one ``automodule`` of ``docs/api``
  (Sphinx itself does not notice a module left out).
* Every path of the repository that the README or a page of ``docs/`` cites (``examples/...``,
  ``tests/...``, ``symbody/...``, a glob such as ``tests/fmu/test_robustness_*.py``) exists, and so does
  every ``docs/...`` path any source, test, example or benchmark cites: a moved file is not left cited
  at its old place.
"""

from __future__ import annotations

import glob
import importlib.util
import re
import shlex
from collections import Counter
from pathlib import Path

import matplotlib
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PACKAGE = ROOT / "src" / "symbody"
PAGES = [ROOT / "README.md", *sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.relative_to(DOCS).parts)]


def python_blocks(text: str) -> list[str]:
    """The ```` ```python ```` blocks of a Markdown page, without those marked as not run."""
    blocks = []
    for match in re.finditer(r"```python\n(.*?)^```$", text, re.M | re.S):
        line_before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        if not (line_before.strip() == "% not run" or line_before.startswith("<!-- not run")):
            blocks.append(match.group(1))
    return blocks


def test_python_blocks_are_found_and_markers_respected():
    page = "text\n\n```python\nx = 1\n```\n\n% not run\n```python\nfragment(\n```\n\n```python\ny = x\n```\n"
    assert python_blocks(page) == ["x = 1\n", "y = x\n"]
    assert python_blocks("<!-- not run: a fragment -->\n```python\nfragment(\n```\n") == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_guide_python_blocks_run(page, tmp_path, monkeypatch):
    matplotlib.use("Agg")  # the animation guide writes a GIF
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "docs_page"}
    for number, code in enumerate(python_blocks(page.read_text(encoding="utf-8")), 1):
        try:
            exec(compile(code, f"{page.name}, python block {number}", "exec"), namespace)
        except Exception as exc:  # name the page and block, keep the traceback
            raise AssertionError(f"{page.relative_to(ROOT)}: python block {number} fails: {exc!r}") from exc


def public_modules() -> list[str]:
    """``symbody``, ``symbody.fmu``, ``symbody.fmu.build``, ...: every module without a private part."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not any(part.startswith("_") for part in parts):
            names.append(".".join(parts))
    return names


def test_every_public_module_is_in_the_api_reference_once():
    documented = Counter(
        name
        for page in (DOCS / "api").glob("*.rst")
        for name in re.findall(r"^\.\. automodule:: (\S+)", page.read_text(encoding="utf-8"), re.M)
    )
    modules = public_modules()
    assert "symbody.fmu.contract" in modules and "symbody" in modules
    missing = [m for m in modules if m not in documented]
    assert not missing, f"modules missing from docs/api: {missing}"
    twice = [m for m, n in documented.items() if n > 1]
    assert not twice, f"modules documented twice in docs/api: {twice}"
    unknown = [m for m in documented if m not in modules]
    assert not unknown, f"docs/api names modules that do not exist: {unknown}"


def test_architecture_guide_ranks_the_layers_as_the_layer_test_does():
    """Each row of the guide's layer table names the packages ``tests/test_layers.py`` gives its rank."""
    path = next((ROOT / "tests").rglob("test_layers.py"))
    spec = importlib.util.spec_from_file_location("layer_table", path)
    assert spec is not None and spec.loader is not None
    layers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(layers)
    RANK = layers.RANK
    text = (DOCS / "explanation" / "architecture.md").read_text(encoding="utf-8")
    rows = {int(m[1]): m[2] for m in re.finditer(r"^\| (\d+) \| [^|]+ \| (.*) \|$", text, re.M)}
    assert sorted(rows) == sorted(set(RANK.values()))
    wrong = [
        (layer, rank) for layer, rank in RANK.items() if not re.search(rf"`{re.escape(layer)}(/|\.py)", rows[rank])
    ]
    assert not wrong, f"layers the guide's table puts in another row than tests/test_layers.py: {wrong}"


def test_cli_reference_synopsis_names_every_cli_option():
    """The command-line reference's synopsis lists every subcommand and every option ``--help`` shows."""
    from symbody.cli import build_parser

    text = (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    synopsis = text.split("# Command line", 1)[1].split("```", 2)[1]
    parser = build_parser()
    (subparsers,) = [a for a in parser._actions if a.choices and isinstance(a.choices, dict)]
    missing = []
    for command, sub in subparsers.choices.items():
        lines = [line for line in synopsis.splitlines() if line.split()[:2] == ["symbody", command]]
        assert lines, f"docs/reference/cli.md's synopsis lacks `symbody {command}`"
        start = synopsis.index(lines[0])
        following = re.search(r"\nsymbody ", synopsis[start + 1 :])
        block = synopsis[start : start + 1 + following.start()] if following else synopsis[start:]
        for action in sub._actions:
            options = [o for o in action.option_strings if o not in ("-h", "--help", "--debug")]
            if options and not any(re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", block) for o in options):
                missing.append(f"{command} {options[0]}")
    assert missing == [], "options missing from docs/reference/cli.md's synopsis"


#: sentences the code once contradicted: (file, phrase, what the code does and which test shows it)
CONTRADICTED = [
    ("examples/overhead_crane.py", "the FMU export refuses", "exports its contacts: test_fmu_events.py"),
    ("docs/reference/modelling.md", "Python backend refuses contacts", "handles them: test_fmu_python_events.py"),
    ("docs/reference/modelling.md", "a prescribed signal", "an input prescribes no motion; s.prescribe does"),
    ("docs/reference/analyses.md", "reduced static equations", "Newton with the multipliers: numeric/equilibrium.py"),
    ("docs/how-to/animation.md", "Long runs are\nresampled", "only runs sampled finer than 30 frames/s are"),
]


@pytest.mark.parametrize(("path", "phrase", "truth"), CONTRADICTED, ids=[c[1] for c in CONTRADICTED])
def test_statements_the_code_contradicts_stay_out(path, phrase, truth):
    assert phrase not in (ROOT / path).read_text(encoding="utf-8"), f"{path} says {phrase!r}, but the code {truth}"


def test_sweep_plot_is_documented_where_the_heat_map_is():
    # the guide's robustness map is drawn by symbody.study.plot, which `symbody sweep --plot` uses too
    guide = (DOCS / "how-to" / "parameter-studies.md").read_text(encoding="utf-8")
    assert "--plot results.png" in guide and "symbody.study.plot.study_figure" in guide
    example = (ROOT / "examples" / "crane_control" / "sweep_lqr.py").read_text(encoding="utf-8")
    assert "from symbody.study.plot import study_figure" in example


#: a path of the repository as the docs cite it: a top-level folder of the repository (or the package,
#: ``symbody/``, under ``src/``) and what follows, not preceded by a character that would make it part
#: of a longer path (``$XDG_CACHE_HOME/symbody``, ``extra/org.symbody.geometry/``)
REPO_PATH = re.compile(r"(?<![\w./$~-])((?:\.ci|benchmarks|docs|examples|fmu_templates|src|tests|symbody)/[\w./*-]*)")
DOC_PAGES = [
    ROOT / "README.md",
    *sorted(p for p in DOCS.rglob("*") if p.suffix in (".md", ".rst") and "_build" not in p.relative_to(DOCS).parts),
]


def cited_paths(text: str, pattern: re.Pattern[str] = REPO_PATH) -> list[str]:
    """The repository paths ``text`` cites, without trailing punctuation and build products."""
    paths = (m.group(1).rstrip(".,:;)") for m in pattern.finditer(text))
    return [path for path in paths if "_build" not in path and path.rstrip("/") not in ("docs", "src", "tests")]


def missing_paths(text: str, pattern: re.Pattern[str] = REPO_PATH) -> list[str]:
    """The cited paths no file or folder of the repository matches."""
    return [
        path
        for path in cited_paths(text, pattern)
        if not glob.glob(str(ROOT / ("src/" + path if path.startswith("symbody/") else path)))
    ]


def test_cited_paths_are_found_and_checked():
    text = "run `tests/fmu/test_robustness_*.py`, see symbody/fmu/raster2.py. not $HOME/symbody/x, (docs/index.md)"
    assert cited_paths(text) == ["tests/fmu/test_robustness_*.py", "symbody/fmu/raster2.py", "docs/index.md"]
    assert missing_paths(text) == ["symbody/fmu/raster2.py"]


@pytest.mark.parametrize("page", DOC_PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_paths_the_docs_cite_exist(page):
    assert missing_paths(page.read_text(encoding="utf-8")) == []


def test_docs_paths_cited_in_the_repository_exist():
    """Sources, tests, examples and benchmarks cite docs pages by path; a page moved is not cited at its old place."""
    docs_path = re.compile(r"(?<![\w./$~-])(docs/[\w./*-]+)")
    files = [
        path
        for folder in ("src", "tests", "examples", "benchmarks")
        for path in sorted((ROOT / folder).rglob("*"))
        if path.suffix in (".py", ".md") and path.is_file()
    ]
    assert len(cited_paths("".join(f.read_text(encoding="utf-8") for f in files), docs_path)) > 10
    stale = {
        f.relative_to(ROOT).as_posix(): m
        for f in files
        if (m := missing_paths(f.read_text(encoding="utf-8"), docs_path))
    }
    assert stale == {}


def test_the_readme_test_command_is_the_one_ci_runs():
    """``.ci/run`` ends with the README's second command ("install and run the tests"), word for word."""
    blocks = re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert blocks[1].strip() == ci == 'python -m pip install -e ".[test]" && python -m pytest -q --slow'


def symbody_commands(text: str) -> list[list[str]]:
    """The ``symbody`` (or ``python -m symbody``) commands of a page's shell blocks, as argument lists.

    Continued lines are joined, ``&&`` separates commands, a ``#`` comment ends one; synopsis lines (a word
    in brackets or with ``|`` alternatives: ``[--fmi 2|3]``) are left out.
    """
    commands = []
    for block in re.findall(r"```(?:bash|shell|console)\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            for part in line.split("&&"):
                words = shlex.split(part.split(" #")[0])
                words = words[3:] if words[:3] == ["python", "-m", "symbody"] else words
                if words[:1] == ["symbody"]:
                    words = words[1:]
                elif words == [] or words[0] not in ("export", "simulate", "info", "validate", "system", "sweep"):
                    continue
                if words and not any(w.startswith("[") or "|" in w for w in words):
                    commands.append(words)
    return commands


def test_symbody_commands_are_found():
    page = "```bash\npython -m pip install . && python -m symbody export m.py -o m.fmu  # FMU\n"
    page += "symbody sweep m.fmu --param a=1,2 \\\n    --stop-time 1 -o r.csv\nsymbody info OUT.fmu [--json]\n```\n"
    assert symbody_commands(page) == [
        ["export", "m.py", "-o", "m.fmu"],
        ["sweep", "m.fmu", "--param", "a=1,2", "--stop-time", "1", "-o", "r.csv"],
    ]


def test_the_symbody_commands_of_the_docs_parse(capsys):
    """Every ``symbody`` command the README and the docs show is accepted by the command line's parser:
    no option the command does not have, none missing that it requires."""
    from symbody.cli import build_parser

    parser = build_parser()
    checked, refused = 0, []
    for page in PAGES:
        for words in symbody_commands(page.read_text(encoding="utf-8")):
            checked += 1
            try:
                parser.parse_args(words)
            except SystemExit:
                refused.append(f"{page.relative_to(ROOT)}: symbody {shlex.join(words)}: {capsys.readouterr().err}")
    assert checked > 15
    assert refused == []
