"""The install step's numba warm-up (fuzzytruth._kernel_warmup): it knows every module that
builds kernels, and its check names the kernels no call of the workload reached. (The workload
itself runs at install, `make`'s install step, where a kernel it misses fails the install; run
here it would compile every kernel again.)"""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

from fuzzytruth import _kernel_warmup

PACKAGE = Path(_kernel_warmup.__file__).parent


def test_every_module_that_builds_kernels_has_a_listed_factory():
    building = {
        ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        for path in PACKAGE.rglob("*.py")
        if re.search(r"numba\.njit\(", path.read_text(encoding="utf-8"))
    }
    listed = {name.split(":")[0] for name in _kernel_warmup.KERNEL_FACTORIES}
    assert building == listed


def test_every_factory_gives_numba_kernels():
    import numba  # imported here: collecting the suite should not load it

    for name in _kernel_warmup.KERNEL_FACTORIES:
        kernels = _kernel_warmup._dispatchers(_kernel_warmup._factory(name)())
        assert kernels and all(isinstance(k, numba.core.dispatcher.Dispatcher)
                               for k in kernels), name


def _probe(monkeypatch) -> dict:
    """Two kernels of a stand-in module, the warm-up's only factory."""
    import numba

    module = types.ModuleType("warmup_probe")

    def twice(x):
        return 2 * x

    def thrice(x):
        return 3 * x

    built = {"twice": numba.njit(twice), "thrice": numba.njit(thrice)}
    module.factory = lambda: built
    monkeypatch.setitem(sys.modules, "warmup_probe", module)
    monkeypatch.setattr(_kernel_warmup, "KERNEL_FACTORIES", ("warmup_probe:factory",))
    return built


def test_the_check_names_the_kernels_not_yet_compiled(monkeypatch):
    built = _probe(monkeypatch)
    assert _kernel_warmup.uncompiled() == ["warmup_probe.twice", "warmup_probe.thrice"]
    assert built["twice"](2) == 4
    assert _kernel_warmup.uncompiled() == ["warmup_probe.thrice"]
    built["thrice"](1.5)
    assert _kernel_warmup.uncompiled() == []


def test_a_kernel_the_workload_misses_fails_the_warm_up_naming_it(monkeypatch, capsys):
    built = _probe(monkeypatch)
    monkeypatch.setattr(_kernel_warmup, "workload", lambda: built["twice"](1))
    assert _kernel_warmup.main() == 1
    assert "reached no call of warmup_probe.thrice (" in capsys.readouterr().err
    monkeypatch.setattr(_kernel_warmup, "workload", lambda: built["thrice"](1))
    assert _kernel_warmup.main() == 0
