"""The server's GUI verifier loads the project's pages only, plus the URL prefixes its settings allow."""

from __future__ import annotations

from fastapi.testclient import TestClient

from serving.app import create_app
from serving.settings import Settings


def _gui_site(settings: Settings):
    app = create_app(settings=settings)
    with TestClient(app):
        return app.state.registry.get("gui").site


def test_the_gui_allow_list_is_a_setting(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("MEDVERIFIER_GUI_ALLOWED_URLS", "http://intranet.example/app/, https://pages.example/")
    settings = Settings(db_path=tmp_path / "c.db")
    assert settings.gui_allowed_urls == ["http://intranet.example/app/", "https://pages.example/"]
    site = _gui_site(settings)
    assert site.allows("http://intranet.example/app/form.html") and not site.allows("http://intranet.example/admin")
    assert not site.allows("http://127.0.0.1:8000/v1/models")


def test_by_default_only_the_project_pages(tmp_path) -> None:
    site = _gui_site(Settings(db_path=tmp_path / "c.db"))
    assert site.allowed_urls == () and not site.allows("http://127.0.0.1:8000/")
    assert site.allows((site.pages_dir / "login.html").as_uri())
