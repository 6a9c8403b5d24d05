"""The package's import graph: module-level imports form no cycle, and each layer imports
only the layers below it (persistence < engine < input < trees < ensembles; the text,
rules and pictures of a tree sit beside input, the metrics and losses on the engine, the
oblique trees beside the ensembles, SHAP above the ensembles, and the exporters read only a
model's description as a sum of trees)."""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "treeboost"


def _modules():
    mods = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = path
    return mods


def _imports(mods):
    """Module -> the treeboost modules it imports at module level (not inside functions)."""
    graph = {}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        out = set()
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    out.add(sub if sub in mods else target)
            elif isinstance(node, ast.Import):
                out.update(a.name for a in node.names)
        graph[name] = {m for m in out if m in mods and m != name}
    return graph


GRAPH = _imports(_modules())


def test_the_graph_is_read():
    assert "treeboost._input.encoding" in GRAPH["treeboost.trees.cart"]
    assert "treeboost.inspection.rules" in GRAPH["treeboost.trees.rules"]


def test_no_module_level_import_cycle():
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(GRAPH[node]):
            if state.get(nxt) == "open":
                cycle = path[path.index(nxt) :] + [nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for module in sorted(GRAPH):
        if module not in state:
            visit(module, [module])


#: what each low layer may import from treeboost, beyond itself
ALLOWED = {
    "treeboost._lazy": (),
    "treeboost.persistence": ("treeboost._atomic",),
    "treeboost.engine": ("treeboost.persistence", "treeboost._atomic", "treeboost._lazy"),
    "treeboost._input": ("treeboost.engine", "treeboost.persistence", "treeboost._atomic"),
    "treeboost.inspection.rules": ("treeboost.engine", "treeboost.persistence"),
    "treeboost.inspection.export": ("treeboost.engine",),
    "treeboost.inspection.drawing": (),
    "treeboost.inspection._tree_view": (),
    # the metrics and the losses (which score themselves with the metrics) sit on the engine
    "treeboost.metrics": ("treeboost.engine",),
    "treeboost.losses": ("treeboost.engine", "treeboost.metrics", "treeboost.persistence"),
    # the exporters read a model only through its description as a sum of trees
    "treeboost.export": (
        "treeboost.engine",
        "treeboost.inspection._model_trees",
        "treeboost._lazy",
    ),
    # the oblique trees sit beside the ensembles (which they use as bases), below inspection
    "treeboost.oblique": (
        "treeboost._atomic",
        "treeboost._input",
        "treeboost.engine",
        "treeboost.persistence",
        "treeboost.trees",
        "treeboost.losses",
        "treeboost.metrics",
        "treeboost.ensembles",
    ),
}


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_a_layer_imports_only_what_lies_below_it(layer):
    allowed = (layer, *ALLOWED[layer])
    wrong = {
        f"{module} -> {target}"
        for module, targets in GRAPH.items()
        if module == layer or module.startswith(layer + ".")
        for target in targets
        if not any(target == a or target.startswith(a + ".") for a in allowed)
        # the layer's own sibling modules (inspection.rules uses inspection._tree_view)
        and not (layer.startswith("treeboost.inspection.") and target in ALLOWED)
    }
    assert not wrong, sorted(wrong)


#: the engine's folders in the order of its pipeline: each imports only those before it
#: (the numba plumbing and the thread pools under everything, the named records the kernels
#: share, then binning, the per-sample statistics, the split search, a grown tree's
#: prediction, and the growers, which use all of them)
ENGINE_STAGES = (
    "kernel_cache",
    "parallel",
    "_numba",
    "records",
    "binning",
    "statistics",
    "split",
    "predict",
    "grow",
)


def _stage(module):
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["treeboost", "engine"] else None


def test_every_engine_module_lies_in_a_stage():
    loose = sorted(
        m for m in GRAPH if m.startswith("treeboost.engine.") and _stage(m) not in ENGINE_STAGES
    )
    assert not loose, loose


def test_an_engine_stage_imports_only_the_stages_before_it():
    wrong = []
    for module, targets in sorted(GRAPH.items()):
        here = _stage(module)
        if here not in ENGINE_STAGES:
            continue
        for target in sorted(targets):
            there = _stage(target)
            if there in ENGINE_STAGES and ENGINE_STAGES.index(there) > ENGINE_STAGES.index(here):
                wrong.append(f"{module} -> {target}")
    assert not wrong, wrong


def test_the_stage_rule_sees_a_backward_import():
    # the rule reads real edges: the growers import the split search, never the reverse
    assert any(_stage(t) == "split" for t in GRAPH["treeboost.engine.grow.examine"])
    assert ENGINE_STAGES.index("split") < ENGINE_STAGES.index("grow")
