"""The command line's words for the inputs and operations error hints name."""

from __future__ import annotations

from ..errors import UacError, Vocabulary

CLI = Vocabulary(
    "cli",
    option=lambda name: "--" + name.replace("_", "-"),
    actions={
        "find_facts": "find fact ids with 'uac search PROJECT QUERY --json'",
        "find_sessions": "find session ids with 'uac search PROJECT QUERY --json' (each hit names its session_id)",
        "doctor": "see 'uac doctor PROJECT'",
        "repair": "rebuild the indexes with 'uac doctor PROJECT --repair'",
        "init": "create it with 'uac init PROJECT'",
        "list_tokens": "see 'uac token list PROJECT'",
        "create_token": "create new tokens with 'uac token create PROJECT'",
        "probe_model": "see what the endpoint supports with 'uac doctor PROJECT --model'",
        "ingest": "add conversations with 'uac ingest PROJECT FILE'",
    },
)


def describe(exc: UacError) -> str:
    """One line for stderr: the message and the hint in the command line's words."""
    hint = exc.hint_for(CLI)
    return exc.message if not hint else f"{exc.message} {hint}"
