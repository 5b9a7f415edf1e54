"""Who may use the page's server: the Host and Origin checks, the per-run token, the bounds on a request body.

The page's server listens on the director's own computer, where any web site open in a browser
can make that browser send requests to it. Three checks stand in the way:

* **Host**: a request must name the server by the address it listens on (127.0.0.1, localhost,
  [::1] or the ``--host`` given, with its port). A page on another site whose name was made to
  resolve to 127.0.0.1 (DNS rebinding) sends its own name, and is refused.
* **Origin**: a request carrying ``Origin`` (or, without it, ``Referer``) must come from the page
  itself; a state-changing request must carry one of them (a browser always sends ``Origin`` with
  a POST, so only a cross-site page or a page in a sandbox is turned away).
* **The token**: a secret drawn for each run, part of the address ``play`` prints; the page sends
  it back with every call (header ``X-Nardy-Token``, or ``?t=`` where a browser cannot set a
  header: the page itself and the event stream). Compared in constant time.
"""

import hmac
import re
import secrets
from urllib.parse import urlsplit

TOKEN_HEADER = "X-Nardy-Token"
TOKEN_PARAM = "t"
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
MAX_BODY = 4096
_DIGITS = re.compile(r"[0-9]{1,12}")


class Denied(Exception):
    """A request the server will not serve: ``code`` is the HTTP status, the message says why."""

    def __init__(self, code, why):
        Exception.__init__(self, why)
        self.code = code
        self.why = why


def new_token():
    """A fresh per-run secret (192 random bits, URL-safe)."""
    return secrets.token_urlsafe(24)


def bracketed(host):
    """A host as it appears in a Host header: IPv6 literals in brackets, lower case."""
    host = host.strip().lower()
    if ":" in host and not host.startswith("["):
        host = "[%s]" % host
    return host


class Guard:
    """The checks for one server: its Host names, its origins and its token."""

    def __init__(self, host, port, token=None):
        names = set(LOOPBACK)
        if host:
            names.add(bracketed(host))
        hosts = set("%s:%d" % (name, port) for name in names)
        if port == 80:                      # a browser leaves the default port out
            hosts |= names
        self.hosts = frozenset(hosts)
        self.origins = frozenset("http://" + h for h in hosts)
        self.token = token or new_token()

    # -- the checks, each raising Denied ---------------------------------------------------------
    def check_host(self, value):
        """The Host header must name this server (defeats DNS rebinding)."""
        if value is None or value.strip().lower() not in self.hosts:
            raise Denied(403, "this server answers only to its own address (Host %s is not one "
                              "of them)" % _shown(value))

    def check_origin(self, origin, referer, required):
        """``Origin`` (else ``Referer``) must be this server's; ``required``: one of them must be
        there (state-changing requests)."""
        if origin is not None:
            if origin.strip().lower() not in self.origins:
                raise Denied(403, "a page from %s may not use this board" % _shown(origin))
            return
        if referer is not None:
            try:
                parts = urlsplit(referer.strip())
            except ValueError:
                raise Denied(403, "the Referer is not an address")
            if parts.scheme.lower() != "http" or parts.netloc.lower() not in self.hosts:
                raise Denied(403, "a page from %s may not use this board"
                             % _shown("%s://%s" % (parts.scheme, parts.netloc)))
            return
        if required:
            raise Denied(403, "a request that changes the game must say which page sent it (Origin)")

    def check_token(self, given):
        """The per-run token, compared in constant time."""
        if not given:
            raise Denied(403, "this page needs its key: open the address `play` printed "
                              "(it ends in ?t=...)")
        if not hmac.compare_digest(given.encode("utf-8", "surrogatepass"),
                                   self.token.encode("ascii")):
            raise Denied(403, "wrong key: open the address `play` printed for this run")


def body_length(headers, limit=MAX_BODY):
    """The length of a request body from its headers, checked before a byte of it is read:
    a Content-Length is required (411), a plain decimal number (400), at most ``limit`` (413)."""
    if headers.get("Transfer-Encoding") is not None:
        raise Denied(411, "send the body with a Content-Length, not in chunks")
    values = headers.get_all("Content-Length") or []
    if not values:
        raise Denied(411, "a Content-Length is required")
    if len(values) > 1:
        raise Denied(400, "more than one Content-Length")
    text = values[0].strip()
    if not _DIGITS.fullmatch(text):
        raise Denied(400, "the Content-Length is not a number of bytes: %s" % _shown(text))
    n = int(text)
    if n > limit:
        raise Denied(413, "the body may hold at most %d bytes, not %d" % (limit, n))
    return n


def _shown(value, width=60):
    """A header value fit for an error message: printable and short."""
    if value is None:
        return "(none)"
    text = "".join(c if " " <= c <= "~" else "?" for c in str(value))
    return repr(text[:width] + ("..." if len(text) > width else ""))
