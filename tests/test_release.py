"""What a release ships: the wheel and sdist carry the licence and the metadata a package index shows,
and the version has its CHANGELOG section (built in process with hatchling, no network)."""

from __future__ import annotations

import re
import tarfile
import zipfile
from pathlib import Path

import pytest

import forge_tools

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("hatchling")
    from hatchling.builders.sdist import SdistBuilder
    from hatchling.builders.wheel import WheelBuilder

    out = tmp_path_factory.mktemp("dist")
    wheel = next(WheelBuilder(str(ROOT)).build(directory=str(out), versions=["standard"]))
    sdist = next(SdistBuilder(str(ROOT)).build(directory=str(out), versions=["standard"]))
    return {"wheel": Path(wheel), "sdist": Path(sdist)}


def test_wheel_ships_licence_and_metadata(built: dict[str, Path]) -> None:
    with zipfile.ZipFile(built["wheel"]) as wheel:
        names = wheel.namelist()
        dist_info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        metadata = wheel.read(f"{dist_info}/METADATA").decode()
        licence = wheel.read(f"{dist_info}/licenses/LICENSE").decode()
    assert "MIT License" in licence
    assert f"Version: {forge_tools.__version__}" in metadata
    assert "License-Expression: MIT" in metadata and "License-File: LICENSE" in metadata
    assert "Classifier: Programming Language :: Python :: 3.11" in metadata
    assert "forge_tools/py.typed" in names


def test_sdist_ships_licence(built: dict[str, Path]) -> None:
    with tarfile.open(built["sdist"]) as sdist:
        names = {n.split("/", 1)[1] for n in sdist.getnames() if "/" in n}
    assert {"LICENSE", "README.md", "CHANGELOG.md", "pyproject.toml"} <= names


def test_version_has_a_changelog_section() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[{re.escape(forge_tools.__version__)}\]", text, re.MULTILINE), (
        f"CHANGELOG.md has no section for {forge_tools.__version__}")
