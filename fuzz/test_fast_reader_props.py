"""The fast reader of ``kcl run``'s command lines against argparse (hypothesis).

Command lines are drawn from the run options themselves (``kclpy.cli.run.configure``
as recorded by the fast reader): every option string, abbreviations of the long ones,
``--opt=value``, ``-Ovalue`` and ``-O=value`` spellings, clusters of short switches,
``-h``, ``--``, files between options, repeated options, and values valid and not
(choices, ``type=`` functions that refuse, values that look like options, '').

Properties: whenever the fast reader answers, its namespace is argparse's
(``parse_intermixed_args`` of the real ``kcl run`` parser), value for value and type
for type; whenever argparse refuses the line (usage error, or help), the fast reader
gives no answer.
"""

from __future__ import annotations

import contextlib
import io
import os
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kclpy.cli import command_parser
from kclpy.cli.fast_reader import option_table, read_fast
from kclpy.cli.run import COMMAND, configure

EXAMPLES = int(os.environ.get("KCLPY_FUZZ_CLI_EXAMPLES", "300")) * 3

TABLE = option_table(configure)
assert TABLE is not None
OPTIONS = sorted(TABLE.options)
ABBREVIATIONS = sorted(
    {name[:cut] for name in OPTIONS if name.startswith("--") for cut in range(3, len(name))}
)
VALUES = [
    "a=1", "env=prod", "x", "", "-", "--", "-1", "-x", "json", "yaml", "xml", "bogus", "human",
    "short", "1G", "512M", "12Q", "0", "0.5", "nan", "inf", "-0.5", "a.b=1", "a-", "a+=[1]",
    "a:{b=1}", "=", "a==", "main.k", "dir/", "é=ü", "a b", "-D", "--tag",
]  # fmt: skip
FILES = ["main.k", "-", "", "kcl.yaml", "名字.k", "a b.k", "-1", "dir"]


def _word() -> st.SearchStrategy[str]:
    option = st.sampled_from(OPTIONS)
    value = st.sampled_from(VALUES)
    attached = st.builds(lambda name, text: name + text, option, value)
    equals = st.builds(lambda name, text: f"{name}={text}", option, value)
    cluster = st.builds(
        lambda first, second: first + second.lstrip("-"),
        st.sampled_from([name for name in OPTIONS if len(name) == 2]),
        st.sampled_from([name for name in OPTIONS if len(name) == 2]),
    )
    return st.one_of(
        option,
        option,
        value,
        st.sampled_from(FILES),
        attached,
        equals,
        cluster,
        st.sampled_from(ABBREVIATIONS),
        st.just("--"),
        st.text(max_size=4),
    )


def _argparse(words: list[str]) -> dict[str, Any] | None:
    """argparse's namespace of ``kcl run WORDS``, or None when it refuses them."""
    parser = command_parser(COMMAND)
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            return vars(parser.parse_intermixed_args(words))
        except SystemExit:
            return None


def _typed(values: dict[str, Any]) -> list[tuple[str, str, str]]:
    return sorted((name, type(value).__name__, repr(value)) for name, value in values.items())


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(st.lists(_word(), max_size=8))
def test_the_fast_reader_answers_only_as_argparse(words: list[str]) -> None:
    fast = read_fast(configure, words)
    expected = _argparse(words)
    if expected is None:
        assert fast is None, words
    elif fast is not None:
        assert _typed(vars(fast)) == _typed(expected), words
