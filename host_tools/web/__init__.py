"""The virtual board page: its HTTP server, the board state it shows, and the links behind it."""
