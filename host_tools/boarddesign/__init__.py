"""The hardware description's tools: its schema, the files generated from it, the magnets' physics, the schematic."""
