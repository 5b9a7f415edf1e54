"""The shipped 8-bit networks, one module per variant (host_tools/engine/quantize.py writes them)."""
