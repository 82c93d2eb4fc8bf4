"""A workload written with `match` (Python 3.10+ syntax): imported only when it runs."""


def match_graph_break(x, mode):
    match mode:
        case "double":
            y = x * 2
        case "neg" | "minus":
            y = -x
        case _:
            y = x
    print("pellucid graph break after a match")
    return y + 1
