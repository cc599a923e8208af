"""``make demo``: build a sample user project offline and show what it can do.

Runs without any model or network: the project is created under
``user_projects/demo`` (or ``$UAC_HOME/demo``) from the sample data in
``examples/demo/``, and each step prints what it produced.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from .memory import UserMemory
from .workspace import resolve_project

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "demo"


def _title(text: str) -> None:
    print(f"\n=== {text} ===")


def _show_tree(root: Path) -> None:
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel.parts[0] == ".uac" and len(rel.parts) > 2:
            continue
        size = f"{path.stat().st_size:>9,} B" if path.is_file() else "        dir"
        print(f"  {size}  {rel}{'/' if path.is_dir() else ''}")


def main(argv: list[str] | None = None) -> int:
    target = resolve_project(argv[0] if argv else "demo")
    if target.exists():
        shutil.rmtree(target)
    _title("1. create a user project")
    memory = UserMemory.create(target, user_name="Maya", timezone="Europe/Lisbon")
    print(f"created {memory.root}")

    _title("2. project health (uac doctor)")
    report = memory.doctor()
    for check in report.checks:
        print(f"  [{check.status}] {check.name}: {check.detail}")

    _title("3. what is on disk")
    _show_tree(memory.root)
    print(f"\nDone. Explore it with: .venv/bin/uac doctor {memory.root}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
