"""What the GUI verifier's browser may load: a ``Site`` (the files of a pages folder and, only when
configured, allowed URL prefixes), the start-page and ``goto`` rules, and the browser's proxy.

A task's start page must be a page of the site (``resolve_url``); the policy's ``goto`` is narrower
(``resolve_goto``): a page of the pages folder by its plain name, with no URL scheme, query or
fragment (a ``goto`` to ``javascript:`` would run script that writes what the predicates look for,
and one to ``order_done.html?medication=...`` would show the success page a form produces without
filling the form). ``proxy_for`` is the network-layer wall behind ``verifier.gui_env``'s request
interception: a dead proxy that only the allowed origins bypass.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from verifier.data import data_dir

PAGES_DIR = data_dir() / "gui" / "pages"

DEAD_PROXY = {"server": "http://127.0.0.1:9", "bypass": "<-loopback>"}
_DEFAULT_PORTS = {"http": 80, "https": 443}


class GuiError(ValueError):
    """A page reference or action that cannot be used (bad URL, missing field for the action)."""


def _origin_and_path(url: str) -> tuple[str, str, int | None, str]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port or _DEFAULT_PORTS.get(scheme)
    except ValueError:  # a port that is not a number
        port = None
    return scheme, (parts.hostname or "").lower(), port, parts.path or "/"


def proxy_for(allowed_urls: Sequence[str]) -> dict[str, str]:
    """The browser's proxy: a dead one for everything but the allowed origins, which the bypass list
    sends direct (loopback included: ``<-loopback>`` drops Chromium's implicit bypass). A second wall
    behind request interception, in the network stack, which a request the interception misses
    cannot get past."""
    origins = sorted({"{}://{}:{}".format(*_origin_and_path(u)[:3]) for u in allowed_urls})
    return {"server": DEAD_PROXY["server"], "bypass": ",".join(["<-loopback>", *origins])}


def _allowed_prefix(entry: str) -> str:
    parts = urlsplit(entry)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise GuiError(f"allowed URL {entry!r}: must be an http(s) URL with a host, e.g. http://127.0.0.1:8080/app/")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise GuiError(f"allowed URL {entry!r}: no query, fragment or user name; give an origin or a path prefix")
    _origin_and_path(entry)
    return entry


def url_allowed(url: str, allowed_urls: Sequence[str]) -> bool:
    """Whether an http(s) URL falls under one of ``allowed_urls``: the same scheme, host and port,
    and a path equal to or below the entry's path (``/app/`` allows ``/app/x``, not ``/apples``)."""
    scheme, host, port, path = _origin_and_path(url)
    if scheme not in ("http", "https") or not host or port is None:
        return False
    for entry in allowed_urls:
        e_scheme, e_host, e_port, e_path = _origin_and_path(entry)
        if (scheme, host, port) != (e_scheme, e_host, e_port):
            continue
        prefix = e_path.rstrip("/")
        if not prefix or path == prefix or path.startswith(prefix + "/"):
            return True
    return False


def _page_file(url: str, pages_dir: Path) -> Path | None:
    """The file a ``file://`` URL names when it is inside ``pages_dir``, else None."""
    parts = urlsplit(url)
    if parts.scheme.lower() != "file" or parts.netloc not in ("", "localhost"):
        return None
    path = Path(unquote(parts.path)).resolve()
    return path if path.is_relative_to(pages_dir.resolve()) and path.is_file() else None


def resolve_url(ref: str, pages_dir: Path = PAGES_DIR, allowed_urls: Sequence[str] = ()) -> str:
    """A start page: a page name under ``pages_dir`` (``"intake.html"``, ``"index.html?user=ann"``),
    the ``file://`` URL of one, or an http(s) URL under one of ``allowed_urls`` (none by default)."""
    parts = urlsplit(ref)
    if parts.scheme in ("http", "https"):
        if not url_allowed(ref, allowed_urls):
            where = f"under {', '.join(allowed_urls)}" if allowed_urls else "(this verifier allows none)"
            raise GuiError(f"page {ref!r}: only the site's own pages and configured URLs {where} may be loaded")
        return ref
    if parts.scheme == "file":
        path = Path(unquote(parts.path)).resolve()
    elif parts.scheme:
        raise GuiError(f"page {ref!r}: unsupported URL scheme {parts.scheme!r}")
    else:
        path = (pages_dir / parts.path).resolve()
    if not path.is_relative_to(pages_dir.resolve()):
        raise GuiError(f"page {ref!r} is outside the pages folder {pages_dir}")
    if not path.is_file():
        raise GuiError(f"page {ref!r} not found in {pages_dir}")
    return path.as_uri() + (f"?{parts.query}" if parts.query else "")


_GOTO_NAME = re.compile(r"[A-Za-z0-9_-]+(?:/[A-Za-z0-9_-]+)*\.html")


def resolve_goto(ref: str, pages_dir: Path = PAGES_DIR) -> str:
    """The ``file://`` URL of a page the policy may open with ``goto``: a plain page name under
    ``pages_dir`` ("login.html"), nothing else (see the module docstring)."""
    if not _GOTO_NAME.fullmatch(ref):
        raise GuiError(
            f"goto {ref[:80]!r} refused: only a page of this site may be opened, by its plain name "
            "(e.g. 'login.html'); URL schemes (javascript:, data:, file:, http:), queries (?), "
            "fragments (#) and paths out of the pages folder are not allowed"
        )
    path = (pages_dir / ref).resolve()
    if not path.is_relative_to(pages_dir.resolve()) or not path.is_file():
        raise GuiError(f"goto {ref!r} refused: no such page in {pages_dir}")
    return path.as_uri()


@dataclass(frozen=True)
class Site:
    """What a browser may load: the files of ``pages_dir`` and the URL prefixes of ``allowed_urls``."""

    pages_dir: Path = PAGES_DIR
    allowed_urls: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "pages_dir", Path(self.pages_dir).resolve())
        object.__setattr__(self, "allowed_urls", tuple(_allowed_prefix(u) for u in self.allowed_urls))

    def start_url(self, ref: str) -> str:
        return resolve_url(ref, self.pages_dir, self.allowed_urls)

    def allows(self, url: str) -> bool:
        if urlsplit(url).scheme.lower() == "file":
            return _page_file(url, self.pages_dir) is not None
        return url_allowed(url, self.allowed_urls)


