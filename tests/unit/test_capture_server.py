"""The local server: 127.0.0.1 only, files under root only."""

import http.client

import pytest

from theme.capture.server import LocalServer, resolve


@pytest.fixture
def site(tmp_path):
    root = tmp_path / "site"
    (root / "assets").mkdir(parents=True)
    (root / "index.html").write_text("<p>hi</p>")
    (root / "assets" / "a b.css").write_text("p{}")
    (tmp_path / "pyproject.toml").write_text("secret")
    return root


def get(server: LocalServer, path: str) -> tuple[int, bytes, str]:
    conn = http.client.HTTPConnection(*server.address, timeout=10)
    conn.request("GET", path)
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp.status, body, resp.getheader("Content-Type") or ""


@pytest.mark.parametrize("path", [
    "/../pyproject.toml", "/%2e%2e/pyproject.toml", "/%2E%2E/pyproject.toml", "/assets/../../pyproject.toml",
    "/assets/%2e%2e/%2e%2e/pyproject.toml", "/..%2fpyproject.toml", "/..%5cpyproject.toml",
    "/%00index.html", "/missing.html",
])
def test_paths_outside_root_or_missing_are_404(site, path):
    with LocalServer(site) as server:
        status, body, _ = get(server, path)
    assert status == 404 and b"secret" not in body


def test_serves_files_and_folder_index(site):
    with LocalServer(site) as server:
        assert get(server, "/index.html")[:2] == (200, b"<p>hi</p>")
        assert get(server, "/")[:2] == (200, b"<p>hi</p>")
        status, body, ctype = get(server, "/assets/a%20b.css?v=1")
    assert (status, body) == (200, b"p{}") and ctype.startswith("text/css")


def test_binds_loopback_only(site):
    with LocalServer(site) as server:
        host, port = server.address
        assert host == "127.0.0.1" and port > 0
        assert server.origin == f"http://127.0.0.1:{port}"


def test_resolve_follows_symlinks_the_author_placed(tmp_path):
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "f.css").write_text("x")
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "assets").symlink_to(tmp_path / "outside")
    assert resolve(tmp_path / "root", "/assets/f.css") == tmp_path / "root" / "assets" / "f.css"
    assert resolve(tmp_path / "root", "/assets/../../outside/f.css") is None
