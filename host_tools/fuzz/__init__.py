"""The fuzzers: seeded mutations of serial lines, files (match files, records, board.json, legal requests) and journals on flash, each case replayable from its seed."""
