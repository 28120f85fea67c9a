"""How a pass declares its options, and how their text is read: `PassOption` (as upstream's
`Option<...>`/`ListOption<...>`), the option text parser (`parse_pass_options`, MLIR's `{k=v ...}`)
and the options several passes share, declared once.

A leaf: pass modules import it for their `OPTIONS`, and the registry for typing what is written."""

from __future__ import annotations

import re
from dataclasses import dataclass

from stablehlo_py.errors import StableHLOError

# The option kinds of upstream's pass declarations: (help placeholder, llvm::cl's type name)
KINDS = {
    "bool": "",
    "int": "=<long>",
    "int32": "=<int>",
    "string": "=<string>",
    "list": "=<string>",
}
_TRUE = ("", "1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


@dataclass(frozen=True)
class PassOption:
    """One option of a pass, as upstream's `Option<...>`/`ListOption<...>` declares it."""

    name: str
    kind: str  # "bool" | "int" (int64) | "int32" | "string" | "list" (of strings)
    default: object
    description: str

    def __post_init__(self) -> None:
        assert self.kind in KINDS, self.kind

    def convert(self, pass_name: str, text: str) -> object:
        """The option's value from its text (`true`, `100`, `a,b`), or one clear error."""
        if self.kind == "bool":
            v = text.strip().lower()
            if v in _TRUE:
                return True
            if v in _FALSE:
                return False
            raise StableHLOError(
                f"option '{self.name}' of pass '{pass_name}' expects true or false, got '{text}'"
            )
        if self.kind in ("int", "int32"):
            bits = 64 if self.kind == "int" else 32
            try:
                value = int(text.strip(), 0)
            except ValueError:
                value = None
            if value is None or not -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
                raise StableHLOError(
                    f"option '{self.name}' of pass '{pass_name}' expects an integer "
                    f"({bits}-bit), got '{text}'"
                )
            return value
        if self.kind == "list":
            return split_list_option(text)
        return text


# The options several passes share, each declared once.
ALLOW_OTHER_DIALECTS = PassOption(
    "allow-other-dialects",
    "bool",
    False,
    "Allow serialization to use other (potentially unstable) dialects, inserts unrealized casts "
    "between dialects.",
)
TARGET = PassOption(
    "target", "string", "", "The target version. Must be a version of the form #.#.#."
)
# StablehloOptimizationPasses's shared flags (optimization/Passes.td)
ASSUME_NO_UNDECLARED_SIDE_EFFECTS = PassOption(
    "assume-no-undeclared-side-effects",
    "bool",
    False,
    "Allow dead code to be eliminated in some situations (e.g. dead while loops) under the "
    "assumption that ops are pure unless declared with explicit MLIR `MemoryEffects`. Notably, "
    "this means `func.call` ops will be assumed pure.",
)
FOLD_OP_ELEMENT_LIMIT = PassOption(
    "fold-op-element-limit",
    "int",
    65536,
    "Folding an op into a constant can sometimes come at the cost of memory overhead. (This occurs "
    "if the op's inputs are reused, meaning that they can't be deleted after the op is folded to a "
    "constant, or when folding operations like `concat` whose outputs take up more memory than "
    "their inputs.) In such cases, this config option sets an upper limit on how many elements an "
    "op's result may have before the op is no longer folded. Splat folds are exempt from this "
    "limit.",
)
OPTIMIZE_FLOAT = PassOption(
    "optimize-float",
    "bool",
    True,
    "Allow float optimizations that, though mathematically equivalent, may result in slightly "
    "different quantization of floating-point values (e.g. `log(sqrt(x))` -> `0.5 * log(x)`). Float "
    "optimizations that can't affect numerical results are always enabled.",
)


_OPEN = {"<": ">", "(": ")", "[": "]", "{": "}"}
_KEY = re.compile(r"\s*[A-Za-z_][\w.-]*\s*=")


def split_top_level(text: str, separators: str) -> list[str]:
    """Split `text` at the characters of `separators` that are outside `<>`, `()`, `[]`, `{}` and
    quotes (the `>` of `->` closes nothing).  Empty pieces are dropped."""
    pieces: list[str] = []
    stack: list[str] = []
    quote = ""
    start = 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in _OPEN:
            stack.append(_OPEN[ch])
        elif stack and ch == stack[-1] and not (ch == ">" and i > 0 and text[i - 1] == "-"):
            stack.pop()
        elif not stack and ch in separators:
            pieces.append(text[start:i])
            start = i + 1
    pieces.append(text[start:])
    return [p.strip() for p in pieces if p.strip()]


def split_list_option(value: str) -> list[str]:
    """A list option's value (`tensor<f32>,tensor<1x?xf32>`) -> its elements, split at the commas
    outside brackets (as MLIR's ListOption)."""
    return [v.strip("'\"") for v in split_top_level(value, ",")]


def parse_pass_options(text: str) -> dict[str, str]:
    """`target=1.0.0 allow-other-dialects=true` (also quoted, or wrapped in braces) -> dict.

    Options are separated by spaces, as MLIR's; a comma followed by `name=` also starts a new option
    (`a=1,b=2`).  Any other comma belongs to the value, which is how list options are written
    (`types=tensor<f32>,tensor<1xf32>`, `op-names=stablehlo.add,stablehlo.reduce`; a space after
    such a comma is allowed); commas and spaces inside `<>`, `()`, `[]`, `{}` or quotes never split."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1].strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1]
    items: list[str] = []
    after_comma = False  # the previous word ended with a comma: `types=tensor<f32>, tensor<i32>`
    for word in split_top_level(text, " \t\n"):
        for j, piece in enumerate(split_top_level(word, ",")):
            continues = j > 0 or after_comma
            if continues and items and not _KEY.match(piece) and "=" in items[-1]:
                items[-1] += "," + piece  # a further element of a list option's value
            else:
                items.append(piece)
        after_comma = word.endswith(",")
    out: dict[str, str] = {}
    for item in items:
        if "=" in item:
            k, v = item.split("=", 1)
            v = v.strip()
            if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
                v = v[1:-1]
            out[k.strip()] = v
        else:
            out[item] = "true"
    return out
