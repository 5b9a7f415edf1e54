"""The station's database: boards, every verified line of every game, games and their results, seats, reports.

SQLite by default (a file in the room); a PostgreSQL URL (``postgresql://...``) for a database
that several stations or tools share, through psycopg when it is installed (the station says so
when it is not). The same SQL serves both: ``?`` placeholders (turned into ``%s`` for psycopg)
and ``INSERT ... ON CONFLICT``. Writes are grouped: ``flush`` commits what the station wrote
since the last one (the station flushes a few times a second), so a crash loses at most those
lines, which the boards still hold and the station asks for again.
"""

import json
import sqlite3
import threading

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS boards (id TEXT PRIMARY KEY, kid TEXT, status TEXT,
       conn TEXT, seen DOUBLE PRECISION)""",
    """CREATE TABLE IF NOT EXISTS lines (board TEXT, serial BIGINT, n BIGINT, line TEXT,
       at DOUBLE PRECISION, PRIMARY KEY (board, serial, n))""",
    """CREATE TABLE IF NOT EXISTS games (board TEXT, serial BIGINT, round BIGINT, state TEXT,
       kid TEXT, tag TEXT, result TEXT, notes TEXT, updated DOUBLE PRECISION,
       PRIMARY KEY (board, serial))""",
    """CREATE TABLE IF NOT EXISTS seats (round BIGINT, board TEXT, white TEXT, black TEXT,
       PRIMARY KEY (round, board))""",
    """CREATE TABLE IF NOT EXISTS reports (at DOUBLE PRECISION, board TEXT, kind TEXT,
       why TEXT, detail TEXT)""",
    """CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT)""",
)


class StoreError(RuntimeError):
    """The database cannot be used; the message says why."""


class Store:
    """One database, by path (SQLite) or URL (PostgreSQL). Thread-safe: one lock around it."""

    def __init__(self, where):
        self.where = where
        self.lock = threading.RLock()
        self.pg = where.startswith(("postgresql://", "postgres://"))
        if self.pg:
            try:
                import psycopg
            except ImportError:
                raise StoreError("a PostgreSQL database needs psycopg (pip install "
                                 "'psycopg[binary]'); without it the station keeps its games in "
                                 "SQLite (--db FILE)")
            self.db = psycopg.connect(where)
        else:
            self.db = sqlite3.connect(where, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
        with self.lock:
            for sql in SCHEMA:
                self.db.execute(sql)
            self.db.commit()
        self.dirty = False

    def _sql(self, sql):
        return sql.replace("?", "%s") if self.pg else sql

    def execute(self, sql, args=()):
        with self.lock:
            self.dirty = True
            return self.db.execute(self._sql(sql), args)

    def query(self, sql, args=()):
        with self.lock:
            return list(self.db.execute(self._sql(sql), args).fetchall())

    def flush(self):
        with self.lock:
            if self.dirty:
                self.db.commit()
                self.dirty = False

    def close(self):
        with self.lock:
            self.flush()
            self.db.close()

    # -- what the station keeps ---------------------------------------------------------------
    def add_line(self, board, serial, n, line, at):
        self.execute("INSERT INTO lines (board, serial, n, line, at) VALUES (?, ?, ?, ?, ?) "
                     "ON CONFLICT (board, serial, n) DO NOTHING", (board, serial, n, line, at))

    def lines(self, board, serial):
        """{n: line} of one game."""
        return dict(self.query("SELECT n, line FROM lines WHERE board = ? AND serial = ?",
                               (board, serial)))

    def line_games(self):
        """(board, serial) of every game the database holds lines of."""
        return [tuple(r) for r in self.query("SELECT DISTINCT board, serial FROM lines")]

    def put_game(self, board, serial, round_, state, kid, tag, result, notes, at):
        self.execute(
            "INSERT INTO games (board, serial, round, state, kid, tag, result, notes, updated) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (board, serial) DO UPDATE SET "
            "state = excluded.state, kid = excluded.kid, tag = excluded.tag, "
            "result = excluded.result, notes = excluded.notes, updated = excluded.updated",
            (board, serial, round_, state, kid, _js(tag), _js(result), _js(notes), at))

    def games(self, board=None):
        sql = "SELECT board, serial, round, state, kid, tag, result, notes FROM games"
        rows = self.query(sql + " WHERE board = ?", (board,)) if board else self.query(sql)
        return [{"board": r[0], "serial": r[1], "round": r[2], "state": r[3], "kid": r[4],
                 "tag": _unjs(r[5]), "result": _unjs(r[6]), "notes": _unjs(r[7]) or []}
                for r in rows]

    def put_board(self, board, kid, status, conn, seen):
        self.execute("INSERT INTO boards (id, kid, status, conn, seen) VALUES (?, ?, ?, ?, ?) "
                     "ON CONFLICT (id) DO UPDATE SET kid = excluded.kid, status = "
                     "excluded.status, conn = excluded.conn, seen = excluded.seen",
                     (board, kid, _js(status), _js(conn), seen))

    def boards(self):
        return [{"id": r[0], "kid": r[1], "status": _unjs(r[2]), "conn": _unjs(r[3]),
                 "seen": r[4]} for r in self.query("SELECT id, kid, status, conn, seen FROM boards")]

    def report(self, at, board, kind, why, detail=""):
        self.execute("INSERT INTO reports (at, board, kind, why, detail) VALUES (?, ?, ?, ?, ?)",
                     (at, board, kind, why, detail[:400]))

    def reports(self, limit=200):
        rows = self.query("SELECT at, board, kind, why, detail FROM reports ORDER BY at DESC "
                          "LIMIT %d" % int(limit))
        return [{"at": r[0], "board": r[1], "kind": r[2], "why": r[3], "detail": r[4]}
                for r in rows]

    def set_seat(self, round_, board, white, black):
        self.execute("INSERT INTO seats (round, board, white, black) VALUES (?, ?, ?, ?) "
                     "ON CONFLICT (round, board) DO UPDATE SET white = excluded.white, "
                     "black = excluded.black", (round_, board, white, black))

    def seats(self):
        return [{"round": r[0], "board": r[1], "white": r[2], "black": r[3]}
                for r in self.query("SELECT round, board, white, black FROM seats")]

    def setting(self, name, default=None):
        rows = self.query("SELECT value FROM settings WHERE name = ?", (name,))
        return _unjs(rows[0][0]) if rows else default

    def set_setting(self, name, value):
        self.execute("INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO "
                     "UPDATE SET value = excluded.value", (name, _js(value)))


def _js(v):
    return None if v is None else json.dumps(v)


def _unjs(v):
    return None if v is None else json.loads(v)
