"""The package list, which pyproject.toml alone cannot express: the top-level `migrations/`
folder (kept where `alembic upgrade head` and the repository's layout expect it) ships inside
the wheel as the package `scat_core._migrations`, one copy of the scripts for both uses.

Everything else about the project is in pyproject.toml.
"""

from setuptools import find_packages, setup

MIGRATIONS = {"scat_core._migrations": "migrations", "scat_core._migrations.versions": "migrations/versions"}

setup(
    packages=[*find_packages(include=["scat_core", "scat_core.*", "scat_cli", "scat_cli.*"]), *MIGRATIONS],
    package_dir=MIGRATIONS,
)
