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


def _usage():
    lines = ["usage: python -m host_tools <command> [args]", "", "commands:"]
    for name in _commands():
        try:
            mod = importlib.import_module("host_tools.cmd_" + name)
            summary = (mod.__doc__ or "").strip().splitlines()[0]
        except Exception as exc:  # a broken command must not hide the others
            summary = "(cannot load: %s)" % exc
        lines.append("  %-10s %s" % (name, summary))
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0
    name = argv[0]
    if name not in _commands():
        print("unknown command %r\n\n%s" % (name, _usage()), file=sys.stderr)
        return 2
    mod = importlib.import_module("host_tools.cmd_" + name)
    return mod.main(argv[1:]) or 0


if __name__ == "__main__":
    sys.exit(main())
