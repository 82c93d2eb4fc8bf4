"""The normalized instruction vocabulary every version's instructions are read into."""

from __future__ import annotations

DROPPED = frozenset(
    {
        "NOP",
        "CACHE",
        "EXTENDED_ARG",
        "RESUME",
        "PRECALL",
        "TO_BOOL",
        "COPY_FREE_VARS",
        "MAKE_CELL",
        "NOT_TAKEN",
        "GEN_START",
    }
)

# Direction variants of the same jump (verify.py normalizes with this table too).
JUMP_ALIASES = {
    "JUMP_FORWARD": "JUMP",
    "JUMP_BACKWARD": "JUMP",
    "JUMP_ABSOLUTE": "JUMP",
    "JUMP_BACKWARD_NO_INTERRUPT": "JUMP",
    "JUMP_NO_INTERRUPT": "JUMP",
    "POP_JUMP_FORWARD_IF_FALSE": "POP_JUMP_IF_FALSE",
    "POP_JUMP_BACKWARD_IF_FALSE": "POP_JUMP_IF_FALSE",
    "POP_JUMP_FORWARD_IF_TRUE": "POP_JUMP_IF_TRUE",
    "POP_JUMP_BACKWARD_IF_TRUE": "POP_JUMP_IF_TRUE",
    "POP_JUMP_FORWARD_IF_NONE": "POP_JUMP_IF_NONE",
    "POP_JUMP_BACKWARD_IF_NONE": "POP_JUMP_IF_NONE",
    "POP_JUMP_FORWARD_IF_NOT_NONE": "POP_JUMP_IF_NOT_NONE",
    "POP_JUMP_BACKWARD_IF_NOT_NONE": "POP_JUMP_IF_NOT_NONE",
}

_TO_BOOL_USERS = frozenset({"POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "UNARY_NOT"})

CONDITIONAL_JUMPS = frozenset(
    {"POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE"}
)
VALUE_JUMPS = frozenset({"JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP"})

# Instructions after which control does not fall through to the next one (besides JUMP).
TERMINAL = frozenset({"RETURN_VALUE", "RAISE_VARARGS", "RERAISE"})

# each conditional jump and the one that jumps on the opposite outcome
INVERSE_JUMPS = {
    "POP_JUMP_IF_FALSE": "POP_JUMP_IF_TRUE",
    "POP_JUMP_IF_TRUE": "POP_JUMP_IF_FALSE",
    "POP_JUMP_IF_NONE": "POP_JUMP_IF_NOT_NONE",
    "POP_JUMP_IF_NOT_NONE": "POP_JUMP_IF_NONE",
}
