"""Where the front end's time goes: lexer, layout filter and LR parse of one file.

    python benchmarks/front_end.py FILE [--reps 3]

Runs the three stages of ``kclpy.syntax`` on FILE in one process (tables loaded
first, cycle collector off as in ``kcl run``) and prints the median
``process_time`` of each over the repetitions, with the token count. A
measurement only; the stages are called the way ``parser.parse_module`` calls
them.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

from kclpy.source import read_source
from kclpy.syntax import parser
from kclpy.syntax.layout import layout
from kclpy.syntax.lexer import raw_tokens


def measure(path: str, reps: int) -> dict[str, float]:
    """Median seconds per stage (``lex``, ``layout``, ``parse``) and the token count."""
    file, _ = read_source(path)
    tables = parser.get_parser()
    rows: list[tuple[float, float, float]] = []
    count = 0
    for _ in range(reps):
        clock = time.process_time
        start = clock()
        raw = raw_tokens(file.text)
        lexed = clock()
        laid = layout(file, raw, parser._interpolator(file, [], 0))
        filtered = clock()
        parser._run(parser._Parse(tables, file, laid.tokens, []))
        parsed = clock()
        count = len(raw)
        rows.append((lexed - start, filtered - lexed, parsed - filtered))
        del raw, laid
    medians = [statistics.median(row[index] for row in rows) for index in range(3)]
    return {"tokens": count, "lex": medians[0], "layout": medians[1], "parse": medians[2]}


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    arguments.add_argument("file")
    arguments.add_argument("--reps", type=int, default=3)
    options = arguments.parse_args()
    gc.disable()
    result = measure(options.file, options.reps)
    total = result["lex"] + result["layout"] + result["parse"]
    print(
        f"{options.file}: {result['tokens']:.0f} tokens; lex {result['lex']:.3f} s, "
        f"layout {result['layout']:.3f} s, LR parse {result['parse']:.3f} s, total {total:.3f} s"
    )


if __name__ == "__main__":
    main()
