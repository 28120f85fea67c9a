"""The pass table: every pass declared once (upstream's name, summary, options with their types and
defaults, the module that runs it).  `stablehlo-opt --help` lists it, the option parser checks
against it, and a pass's `run(module, options)` receives its options typed, defaults filled in."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.ir import Operation

from stablehlo_py.errors import NotSupportedError, StableHLOError

# The option kinds of upstream's pass declarations: (help placeholder, llvm::cl's type name)
_KINDS = {
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
        assert self.kind in _KINDS, self.kind

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


@dataclass(frozen=True)
class PassInfo:
    name: str
    summary: str
    module: str  # module defining `run(module, options) -> module`
    options: tuple[PassOption, ...] = ()

    def typed_options(self, options: dict[str, str]) -> dict[str, object]:
        """`options` as written (name -> text) checked against the declaration: every declared
        option present, typed, defaults filled in; an undeclared one is an error."""
        declared = {o.name: o for o in self.options}
        unknown = sorted(set(options) - set(declared))
        if unknown:
            takes = ", ".join(sorted(declared)) or "no options"
            raise StableHLOError(
                f"unknown option{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(repr(u) for u in unknown)} for pass '{self.name}'; it takes: {takes}"
            )
        return {
            name: (o.convert(self.name, options[name]) if name in options else o.default)
            for name, o in declared.items()
        }

    def run(self, op: Operation, options: dict[str, str]) -> Operation:
        typed = self.typed_options(options)
        try:
            module = importlib.import_module(self.module)
        except ModuleNotFoundError as e:
            if e.name != self.module:
                raise
            raise NotSupportedError(
                f"pass '{self.name}' is not supported by stablehlo-py yet (declared as upstream's, "
                "not implemented)"
            ) from None
        fn: Callable[[Operation, dict[str, object]], Operation] = module.run
        return fn(op, typed)

    def help_lines(self, width: int = 48) -> list[str]:
        """The pass and its options as `stablehlo-opt --help` lists them (as MLIR's)."""
        lines = [f"      --{self.name:<{width - 8}} -   {self.summary}"]
        for o in self.options:
            flag = f"--{o.name}{_KINDS[o.kind]}"
            lines.append(f"        {flag:<{width - 10}} - {o.description}")
        return lines


def _opt(name: str, kind: str, default: object, description: str) -> PassOption:
    return PassOption(name, kind, default, description)


_ALLOW_OTHER = _opt(
    "allow-other-dialects",
    "bool",
    False,
    "Allow serialization to use other (potentially unstable) dialects, inserts unrealized casts "
    "between dialects.",
)
_TARGET = _opt("target", "string", "", "The target version. Must be a version of the form #.#.#.")
# StablehloOptimizationPasses's shared flags (optimization/Passes.td)
_NO_SIDE_EFFECTS = _opt(
    "assume-no-undeclared-side-effects",
    "bool",
    False,
    "Allow dead code to be eliminated in some situations (e.g. dead while loops) under the "
    "assumption that ops are pure unless declared with explicit MLIR `MemoryEffects`. Notably, "
    "this means `func.call` ops will be assumed pure.",
)
_FOLD_LIMIT = _opt(
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
_OPTIMIZE_FLOAT = _opt(
    "optimize-float",
    "bool",
    True,
    "Allow float optimizations that, though mathematically equivalent, may result in slightly "
    "different quantization of floating-point values (e.g. `log(sqrt(x))` -> `0.5 * log(x)`). Float "
    "optimizations that can't affect numerical results are always enabled.",
)


def _pass(name: str, summary: str, *options: PassOption, module: str | None = None) -> PassInfo:
    return PassInfo(
        name, summary, module or "stablehlo_py.passes." + name.replace("-", "_"), tuple(options)
    )


PASSES: dict[str, PassInfo] = {
    p.name: p
    for p in (
        _pass("inline", "Inline calls to private functions and drop the dead ones"),
        _pass(
            "canonicalize",
            "Canonicalize operations (the StableHLO, CHLO and func ops' canonicalization patterns "
            "and folders)",
            # MLIR's Canonicalizer options (mlir/Transforms/Passes.td), RewritePassUtils' last
            _opt("top-down", "bool", True, "Seed the worklist in general top-down order"),
            _opt(
                "region-simplify",
                "string",
                "normal",
                "Perform control flow optimizations to the region tree (disabled, normal, "
                "aggressive)",
            ),
            _opt(
                "max-iterations",
                "int",
                10,
                "Max. iterations between applying patterns / simplifying regions",
            ),
            _opt(
                "max-num-rewrites", "int", -1, "Max. number of pattern rewrites within an iteration"
            ),
            _opt(
                "test-convergence",
                "bool",
                False,
                "Test only: Fail pass on non-convergence to detect cyclic pattern",
            ),
            _opt(
                "disable-patterns",
                "list",
                [],
                "Labels of patterns that should be filtered out during application",
            ),
            _opt(
                "enable-patterns",
                "list",
                [],
                "Labels of patterns that should be used during application, all other patterns "
                "are filtered out",
            ),
        ),
        _pass(
            "chlo-legalize-to-stablehlo", "Legalizes from CHLO ops flow to StableHLO and Shape ops"
        ),
        _pass(
            "chlo-pre-serialization-pipeline",
            "Lower as much as possible to StableHLO before serialization: CHLO (static shapes)",
            module="stablehlo_py.passes.chlo_legalize_to_stablehlo",
        ),
        _pass("shape-legalize-to-stablehlo", "Legalize shape-related ops to StableHLO."),
        _pass(
            "stablehlo-legalize-to-vhlo",
            "Legalize StableHLO to VHLO.",
            _ALLOW_OTHER,
        ),
        _pass("vhlo-legalize-to-stablehlo", "Legalize VHLO to StableHLO.", _ALLOW_OTHER),
        _pass(
            "vhlo-to-version",
            "Convert between versions of VHLO for compatibility.",
            _opt(
                "target", "string", "", "The target version. Must be a version of the form #.#.# ."
            ),
            _ALLOW_OTHER,
        ),
        _pass(
            "hlo-test-infer",
            "Test pass: attach the result types inference gives to `hlo_test_infer.get_return_types` ops",
        ),
        _pass(
            "stablehlo-refine-arguments",
            "Refines the argument shapes of the main function.",
            _opt(
                "types",
                "list",
                [],
                "The new types to be used for the main function's arguments, specified as an MLIR "
                "TypeRange 'tensor<1x2xf32>, ...'",
            ),
        ),
        _pass("stablehlo-refine-shapes", "Refines shapes across a StableHLO program."),
        _pass(
            "stablehlo-ext-refine-shapes",
            "XLA's stablehlo-refine-shapes: also refines the experimental custom calls jax.export "
            "emits (dynamic_reduce_window, dynamic_rng_bit_generator, dynamic_top_k)",
        ),
        _pass(
            "stablehlo-canonicalize-dynamism",
            "Canonicalizes dynamic StableHLO ops into static ops.",
        ),
        _pass(
            "stablehlo-check-shape-assertions",
            "Check stablehlo.custom_call @shape_assertion ops.",
            _opt(
                "enable-shape-assertions",
                "bool",
                True,
                "Whether shape assertions may generate errors.",
            ),
        ),
        _pass(
            "stablehlo-legalize-composite-to-call",
            "Replaces composite ops with a call to their decomposition.",
            _opt(
                "except", "list", [], "Names of composites that should not be replaced with calls."
            ),
        ),
        _pass(
            "stablehlo-compatibility-expander",
            "Compatibility expander for StableHLO operations.",
            _TARGET,
        ),
        _pass("stablehlo-complex-math-expander", "Expander for StableHLO complex math operations."),
        _pass(
            "stablehlo-convert-to-signless",
            "Pass to transform the IR to be on signless integers.",
        ),
        _pass(
            "stablehlo-legalize-deprecated-ops",
            "Legalize deprecated ops to well-supported ops.",
            _opt(
                "fail-on-unused",
                "bool",
                True,
                "Fail on (mostly) unused ops that are deprecated without any fallback.",
            ),
        ),
        _pass(
            "stablehlo-legalize-qdq-to-quantized-op",
            "Fuse (de-quantize, floating-point operation and quantize) pattern into StableHLO "
            "quantized operation",
        ),
        _pass(
            "stablehlo-legalize-quantized-op-to-qdq",
            "Decompose quantized StableHLO operation to (de-quantize, floating-point operation and "
            "quantize) pattern.",
        ),
        _pass(
            "stablehlo-legalize-quant-to-math",
            "Convert from StableHLO quantized ops to StableHLO primitive math ops.",
        ),
        _pass(
            "stablehlo-wrap-in-composite",
            "Wraps a non-composite  StableHLO op in a composite op.",
            _opt("op-names", "list", [], "The names of the ops to wrap."),
            _opt("version", "int32", 0, "The version number of the composite op."),
        ),
        _pass(
            "stablehlo-aggressive-folder",
            "Folds StableHLO operations",
            _NO_SIDE_EFFECTS,
            _FOLD_LIMIT,
            _OPTIMIZE_FLOAT,
        ),
        _pass(
            "stablehlo-aggressive-simplification", "Canonicalizes StableHLO operations", _FOLD_LIMIT
        ),
        _pass(
            "stablehlo-target-independent-optimization",
            "Runs canonicalizers, folders, and other target-independent optimizations.",
            _NO_SIDE_EFFECTS,
            _FOLD_LIMIT,
            _OPTIMIZE_FLOAT,
        ),
        _pass(
            "interpreter-instrument-with-probe",
            "Instrument operations with probes",
            _opt(
                "useDebugInfo",
                "bool",
                False,
                "Whether or not to attempt to use debug info from the MLIR program to generate "
                "probe IDs",
            ),
        ),
    )
}


def help_text() -> str:
    """`stablehlo-opt --help`'s list of passes with their options."""
    lines = ["  Passes:"]
    for name in sorted(PASSES):
        lines.extend(PASSES[name].help_lines())
    return "\n".join(lines) + "\n"


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


def run_pipeline(op: Operation, pipeline: list[tuple[str, dict[str, str]]]) -> Operation:
    """Run the passes in order; like MLIR's pass manager, verify the IR after each one."""
    from stablehlo_py.ir.verify import verify

    for name, options in pipeline:
        info = PASSES.get(name)
        if info is None:
            raise StableHLOError(f"unknown pass '{name}'; available: {', '.join(sorted(PASSES))}")
        op = info.run(op, options)
        verify(op)
    return op


# Upstream's registered pass pipelines (transforms/PassPipelines.cpp), usable as `--<name>` or inside
# `--pass-pipeline=...`, each the passes it adds, in order.  (`chlo-pre-serialization-pipeline` is a
# pass of its own here: PASSES.)
PIPELINES: dict[str, tuple[tuple[str, dict[str, str]], ...]] = {
    # VHLO at any version -> VHLO at the current version -> StableHLO
    "stablehlo-deserialize": (
        ("vhlo-to-version", {"target": "current"}),
        ("vhlo-legalize-to-stablehlo", {}),
    ),
}


def parse_pass_pipeline(text: str) -> list[tuple[str, dict[str, str]]]:
    """MLIR's textual pass pipeline (`--pass-pipeline='builtin.module(a, b{k=v}, func.func(c))'`)
    -> the passes in order, with their options.  Nested anchors (`func.func(...)`) run their passes
    over every function of the module, which is what this toolkit's passes do anyway; a registered
    pipeline name expands to its passes.  An unknown pass or malformed text is a StableHLOError."""
    text = text.strip().strip("'\"").strip()
    out: list[tuple[str, dict[str, str]]] = []
    for item in split_top_level(text, ","):
        head, brace, rest = item.partition("{")
        if "(" in head:
            anchor, _, inner = item.partition("(")
            if not inner.endswith(")") or not anchor.strip():
                raise StableHLOError(
                    f"malformed pass pipeline '{text}': '{item}' is not `op-name(pass, ...)`"
                )
            out.extend(parse_pass_pipeline(inner[:-1]))
            continue
        name = head.strip()
        if brace and not rest.endswith("}"):
            raise StableHLOError(f"malformed pass pipeline '{text}': '{item}' has no closing '}}'")
        options = parse_pass_options(rest[:-1]) if brace else {}
        if name in PIPELINES:
            if options:
                raise StableHLOError(f"pass pipeline '{name}' takes no options")
            out.extend((n, dict(o)) for n, o in PIPELINES[name])
        elif name in PASSES:
            out.append((name, options))
        else:
            known = ", ".join(sorted([*PASSES, *PIPELINES]))
            raise StableHLOError(
                f"'{name}' in --pass-pipeline does not refer to a registered pass or pass "
                f"pipeline; known: {known}"
            )
    return out
