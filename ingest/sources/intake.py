"""What a batch reads: the files the user meant, and every path it skips with its reason.

Two ways in. The CLI reads the paths it is given (folders walked; a symbolic link it meets is
followed, and the resolved path is what it reads and records). The inbox is a drop box: only its
own regular files are read; a symbolic link leading out of it is refused, never followed (a link
`x.md` to a system file must not be served). Anything that is not a regular file (a folder named
`y.pdf`, a dangling link, a FIFO, a socket, a device) is reported instead of being read: reading a
FIFO would block the writer forever. Registration itself happens under the writer lock inside a
journal intent, the same path for the CLI runner and the inbox sensor.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from corpus.state.journal import close_intent, open_intent
from corpus.state.layout import StateLayout
from corpus.state.lock import writer_lock
from ingest.sources.folder_manifest import MANIFEST_NAME, NOT_LISTED, THE_MANIFEST, read_manifest
from ingest.sources.register import Registration, quarantine, register_file

OUTSIDE_INBOX = "symbolic link leading outside the inbox: refused, not followed (drop the file itself)"
DANGLING = "dangling symbolic link: its target does not exist"
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


@dataclass
class Intake:
    files: list[tuple[Path, str | None]] = field(default_factory=list)  # (resolved path, manifest key)
    skipped: dict[str, str] = field(default_factory=dict)  # path as met -> reason
    met: dict[Path, Path] = field(default_factory=dict)  # resolved path -> path as met
    declared: dict[Path, dict[str, str]] = field(default_factory=dict)  # resolved path -> its folder manifest's row


def classify(path: Path, inside: Path | None = None) -> Path | str:
    """The resolved path of a regular file to read, else the reason it is skipped.
    With `inside`, a path resolving outside that folder is refused."""
    try:
        target = path.resolve(strict=True)
        mode = target.stat().st_mode
    except FileNotFoundError:
        return DANGLING if path.is_symlink() else "no such file"
    except PermissionError:
        return "not readable (permission denied)"
    except (OSError, RuntimeError) as exc:  # RuntimeError: pathlib's report of a symbolic link loop
        return f"cannot be resolved ({getattr(exc, 'strerror', None) or 'symbolic link loop'})"
    if inside is not None and not target.is_relative_to(inside):
        return OUTSIDE_INBOX
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "a special file")
        return f"{kind}, not a regular file"
    return target


def collect_paths(paths: list[Path]) -> Intake:
    """The CLI's files: each given file, each file under each given folder (sorted); a folder with
    a manifest.csv gives the files it lists, with what it declares of each (ingest.sources.folder_manifest)."""
    intake = Intake()
    for root in paths:
        walked = sorted(root.rglob("*")) if root.is_dir() else [root]
        listed = read_manifest(root) if root.is_dir() else None
        met = len(intake.files) + len(intake.skipped)
        for path in walked:
            if path.is_dir() and not path.is_symlink():
                continue  # a folder met in a walk is walked (rglob does not follow linked folders)
            if listed is not None and path.resolve() not in listed:
                is_manifest = path.parent == root and path.name == MANIFEST_NAME
                intake.skipped[str(path)] = THE_MANIFEST if is_manifest else NOT_LISTED
                continue
            _take(intake, path, None)
            if listed is not None and path.resolve() in listed:
                intake.declared[path.resolve()] = listed[path.resolve()]
        if root.is_dir() and len(intake.files) + len(intake.skipped) == met:
            intake.skipped[str(root)] = "a folder with no file in it"
    return intake


def collect_inbox(inbox: Path) -> Intake:
    """The inbox's entries; hidden names are copies still being written (editors, atomic moves)."""
    intake, inside = Intake(), inbox.resolve()
    for path in sorted(inbox.iterdir()):
        if not path.name.startswith("."):
            _take(intake, path, inside)
    return intake


def _take(intake: Intake, path: Path, inside: Path | None) -> None:
    target = classify(path, inside)
    if isinstance(target, str):
        intake.skipped[str(path)] = target
    elif target not in intake.met:  # one file met twice (itself and a link to it) is read once
        intake.met[target] = path
        intake.files.append((target, None))


def register_batch(layout: StateLayout, intake: Intake) -> list[Registration]:
    """Register the intake's files (the caller holds the writer lock inside an open intent)."""
    return [
        register_file(layout, path, key, name=intake.met.get(path, path).name, declared=intake.declared.get(path))
        for path, key in intake.files
    ]


def take_inbox(layout: StateLayout) -> tuple[Intake, list[Registration]]:
    """Empty the inbox the writer's way: under the writer lock (WriterBusyError while another
    writer holds it) and inside a journal intent naming the resolved paths, register its files,
    set aside what cannot be read, and remove both from the inbox."""
    if not any(not p.name.startswith(".") for p in layout.inbox.iterdir()):
        return Intake(), []
    with writer_lock(layout.lock_file):
        intake = collect_inbox(layout.inbox)
        intent = open_intent(layout, "ingest", [], {"files": [str(p) for p, _ in intake.files]})
        registrations = register_batch(layout, intake)
        for entry, reason in intake.skipped.items():
            set_aside_inbox_entry(layout, Path(entry), reason)
        for path, _ in intake.files:
            intake.met[path].unlink(missing_ok=True)  # registered (copied under its id) or quarantined
        close_intent(intent)
    return intake, registrations


def set_aside_inbox_entry(layout: StateLayout, path: Path, reason: str) -> None:
    """Take a skipped entry out of the inbox so it is reported once: a link is removed (its target
    is never touched or copied), anything else is moved into quarantine beside its reason."""
    if path.is_symlink():
        path.unlink(missing_ok=True)
        quarantine(layout, path, reason, copy=False)
        return
    target = layout.quarantine / path.name
    while target.exists() or target.is_symlink():
        target = target.with_name(f"_{target.name}")
    os.rename(path, target)
    quarantine(layout, target, reason, copy=False)
